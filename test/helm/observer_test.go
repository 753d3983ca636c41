package helm_test

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// jobObserver watches the Jobs, Pods and Events of one namespace and only
// reads: the cluster's Job controller runs the Jobs, kwok their pods. It
// records every run of a Job (each run is a new UID) in the order the runs
// appeared, whether the Job controller made a pod for it, whether that pod
// succeeded, and the Jobs whose pods the API server refused because their
// ServiceAccount did not exist. Such a Job never completes (ServiceAccount
// admission is on), so a hook run before its account would hang an install
// that waits for it; the record says why.
type jobObserver struct {
	mu      sync.Mutex
	runs    []jobRun
	history []string           // "created NAME" and "succeeded NAME", as seen
	podded  map[types.UID]bool // the runs that controlled a pod the observer saw
	missing map[string]string  // Job name → the account it lacked
}

// jobRun is one run of a Job.
type jobRun struct {
	name      string
	uid       types.UID
	succeeded bool // the observer saw status.succeeded ≥ 1
}

// missingAccount matches the message of the Job controller's FailedCreate
// Event when ServiceAccount admission refused the pod.
var missingAccount = regexp.MustCompile(`serviceaccount "([^"]+)" not found`)

// observeJobs watches namespace, which need not exist yet, until the spec
// (or the Ordered container) ends.
func observeJobs(namespace string) *jobObserver {
	GinkgoHelper()
	o := &jobObserver{missing: map[string]string{}, podded: map[types.UID]bool{}}
	clientset, err := kubernetes.NewForConfig(env.Config)
	Expect(err).NotTo(HaveOccurred())
	factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0, informers.WithNamespace(namespace))
	_, err = factory.Batch().V1().Jobs().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    o.sawJob,
		UpdateFunc: func(_, obj any) { o.sawJob(obj) },
		DeleteFunc: o.sawJob,
	})
	Expect(err).NotTo(HaveOccurred())
	_, err = factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: o.sawPod})
	Expect(err).NotTo(HaveOccurred())
	_, err = factory.Core().V1().Events().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    o.sawEvent,
		UpdateFunc: func(_, obj any) { o.sawEvent(obj) },
	})
	Expect(err).NotTo(HaveOccurred())
	stop := make(chan struct{})
	factory.Start(stop)
	DeferCleanup(func() { close(stop); factory.Shutdown() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for typ, synced := range factory.WaitForCacheSync(ctx.Done()) {
		Expect(synced).To(BeTrue(), "the informer of %v synced", typ)
	}
	return o
}

func (o *jobObserver) sawJob(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	j, ok := obj.(*batchv1.Job)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	i := slices.IndexFunc(o.runs, func(run jobRun) bool { return run.uid == j.UID })
	if i < 0 {
		o.runs = append(o.runs, jobRun{name: j.Name, uid: j.UID})
		o.history = append(o.history, "created "+j.Name)
		i = len(o.runs) - 1
	}
	if !o.runs[i].succeeded && j.Status.Succeeded >= 1 {
		o.runs[i].succeeded = true
		o.history = append(o.history, "succeeded "+j.Name)
	}
}

func (o *jobObserver) sawPod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	owner := metav1.GetControllerOf(pod)
	if owner == nil || owner.Kind != "Job" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.podded[owner.UID] = true
}

func (o *jobObserver) sawEvent(obj any) {
	e, ok := obj.(*corev1.Event)
	if !ok || e.InvolvedObject.Kind != "Job" || e.Reason != "FailedCreate" {
		return
	}
	if m := missingAccount.FindStringSubmatch(e.Message); m != nil {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.missing[e.InvolvedObject.Name] = m[1]
	}
}

// Runs returns how many runs of the Job name the observer saw.
func (o *jobObserver) Runs(name string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, run := range o.runs {
		if run.name == name {
			n++
		}
	}
	return n
}

// Order returns the names of the Jobs in the order their runs appeared.
func (o *jobObserver) Order() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	names := make([]string, 0, len(o.runs))
	for _, run := range o.runs {
		names = append(names, run.name)
	}
	return names
}

// Podless returns the names of the runs for which the observer saw no pod.
func (o *jobObserver) Podless() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var names []string
	for _, run := range o.runs {
		if !o.podded[run.uid] {
			names = append(names, run.name)
		}
	}
	return names
}

// History returns "created NAME" for each run as it appeared and
// "succeeded NAME" when its pod had succeeded, in the order seen.
func (o *jobObserver) History() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.history)
}

// OneAtATime is the History of the runs of Order had each run succeeded
// before the next one was created.
func (o *jobObserver) OneAtATime() []string {
	var history []string
	for _, name := range o.Order() {
		history = append(history, "created "+name, "succeeded "+name)
	}
	return history
}

// Missing returns the Jobs whose pods were refused for want of their
// ServiceAccount, with the account.
func (o *jobObserver) Missing() map[string]string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.missing)
}

// The observer's record of a missing account is what makes a hook that runs
// before its ServiceAccount visible; this checks that it sees one.
var _ = Describe("the Job observer", func() {
	It("records a Job whose pod the API server refuses for want of its ServiceAccount, and no success of it", func() {
		ctx := context.Background()
		ns := newNamespace(ctx, "observer")
		jobs := observeJobs(ns)
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "early-hook"},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				ServiceAccountName: "later-account",
				RestartPolicy:      corev1.RestartPolicyNever,
				Containers:         []corev1.Container{{Name: "run", Image: "registry.example/hook:1.0"}},
			}}},
		}
		Expect(env.Client.Create(ctx, job)).To(Succeed())

		eventually(jobs.Missing).Should(Equal(map[string]string{"early-hook": "later-account"}))
		Expect(jobs.Podless()).To(Equal([]string{"early-hook"}))
		Expect(jobs.History()).To(Equal([]string{"created early-hook"}))
	})
})
