package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// clusterTimeout bounds what the real controllers do (a rollout, the
// garbage collector, the namespace controller): seconds, with room for a
// loaded machine.
const clusterTimeout = 2 * time.Minute

// Readiness against the real Job controller, and deletion against the real
// garbage collector and namespace controller: what "gone" means for each
// delete propagation and delete policy.
var _ = Describe("on a cluster with controllers", Label("cluster"), Ordered, func() {
	var cluster *testcluster.Env
	ctx := context.Background()

	BeforeAll(func() {
		var err error
		cluster, err = testcluster.Start(testcluster.Options{Controllers: true})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(cluster.Stop()).To(Succeed()) })
	})

	// setUp gives a spec a namespace of its own and a harness on the cluster.
	setUp := func(name string) (string, *harness) {
		namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-"}}
		Expect(cluster.Client.Create(ctx, namespace)).To(Succeed())
		h := newHarnessOn(ctx, cluster.Config, name+"-"+namespace.Name, optionsDefault(), engine.CachedTargetOptions{})
		h.owner.Namespace = namespace.Name
		return namespace.Name, h
	}

	// applyUntilReady applies until the pass is Done: every Deployment rolled out.
	applyUntilReady := func(h *harness, objects ...any) {
		Eventually(func() (bool, error) {
			res, err := h.apply(ctx, objects...)
			return res.Done, err
		}).WithTimeout(clusterTimeout).WithPolling(200 * time.Millisecond).Should(BeTrue())
	}

	deleteUntilDone := func(h *harness) {
		Eventually(func() (bool, error) {
			res, err := h.delete(ctx)
			return res.Done, err
		}).WithTimeout(clusterTimeout).WithPolling(200 * time.Millisecond).Should(BeTrue())
		Expect(h.inventory).To(BeEmpty())
	}

	It("holds the next wave while a Job's pod runs, and applies it once the Job is Complete", func() {
		ns, h := setUp("running-job")
		job := oneShot(ns, "migrate")
		job.Spec.Template.Annotations = map[string]string{testcluster.NotReadyAnnotation: "true"} // its pod runs until the spec ends it
		later := configMap(ns, "later", nil, "apply-order", "1")

		Eventually(func() ([]engine.Waiting, error) {
			res, err := h.apply(ctx, job, later)
			return res.Waiting, err
		}).WithTimeout(clusterTimeout).Should(HaveExactElements(HaveField("String()",
			HavePrefix("batch/Job "+ns+"/migrate: Creating, InProgress: Job in progress. success:0, active: 1"))),
			"kstatus calls a started Job Current; wavekit waits for Complete")
		Expect(getIn(ctx, cluster.Client, &corev1.ConfigMap{}, ns, "later")).To(BeFalse(), "wave 1 waits for the running Job")

		Eventually(func() []corev1.Pod { return podsIn(ctx, cluster.Client, ns) }).WithTimeout(clusterTimeout).
			Should(HaveExactElements(HaveField("Status.Phase", corev1.PodRunning)))
		Expect(getIn(ctx, cluster.Client, &corev1.ConfigMap{}, ns, "later")).To(BeFalse(), "wave 1 waits for the Job, not for its pod to start")
		pods := podsIn(ctx, cluster.Client, ns)
		// End the pod's run as its program would: kwok completes a Job's pod
		// without the annotation.
		delete(pods[0].Annotations, testcluster.NotReadyAnnotation)
		Expect(cluster.Client.Update(ctx, &pods[0])).To(Succeed())

		applyUntilReady(h, job, later)
		Expect(getIn(ctx, cluster.Client, &corev1.ConfigMap{}, ns, "later")).To(BeTrue())
	})

	It("fails the pass with the Job's own reason and message once its pod failed, and applies nothing after it", func() {
		ns, h := setUp("failed-job")
		job := oneShot(ns, "migrate")
		job.Spec.Template.Annotations = map[string]string{testcluster.FailAnnotation: "true"}
		later := configMap(ns, "later", nil, "apply-order", "1")

		var err error
		Eventually(func() error {
			_, err = h.apply(ctx, job, later)
			return err
		}).WithTimeout(clusterTimeout).Should(MatchError(ContainSubstring(
			"batch/Job " + ns + "/migrate failed: Failed: BackoffLimitExceeded: Job has reached the specified backoff limit")))
		var failed *engine.ObjectError
		Expect(errors.As(err, &failed)).To(BeTrue(), "a failed object is an ObjectError")
		Expect(failed.Action).To(Equal(engine.ActionReady))
		Expect(failed.Object).To(Equal(manifests.ObjectKey{Group: "batch", Kind: "Job", Namespace: ns, Name: "migrate"}))
		Expect(getIn(ctx, cluster.Client, &corev1.ConfigMap{}, ns, "later")).To(BeFalse())
		pods := podsIn(ctx, cluster.Client, ns)
		Expect(pods).To(HaveLen(1))
		Expect(pods[0].Status.Phase).To(Equal(corev1.PodFailed), "the Job controller's verdict comes from its pod")
	})

	It("deletes a Deployment in foreground: the next delete wave starts after its ReplicaSet and pods are gone", func() {
		ns, h := setUp("foreground")
		applyUntilReady(h,
			workload(ns, "web", 2, "delete-propagation", "foreground"),
			configMap(ns, "settings", map[string]string{"db": "main"}, "delete-order", "1"))
		Expect(h.inventory).To(ContainElement(HaveField("DeletePropagation", BeEquivalentTo("foreground"))))
		Expect(replicaSetsIn(ctx, cluster.Client, ns)).To(HaveLen(1))
		Expect(podsIn(ctx, cluster.Client, ns)).To(HaveLen(2))
		recorder := recordEvents(ctx, cluster, ns)

		res, err := h.delete(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse(), "the API server keeps a Deployment deleted in foreground until its dependents are gone")
		Expect(res.Waiting).To(HaveExactElements(HaveField("String()",
			"apps/Deployment "+ns+"/web: being deleted (foreground: waiting for the garbage collector to remove its dependents)")))
		Expect(getIn(ctx, cluster.Client, &corev1.ConfigMap{}, ns, "settings")).To(BeTrue(), "the ConfigMap's wave has not started")

		deleteUntilDone(h)
		Expect(replicaSetsIn(ctx, cluster.Client, ns)).To(BeEmpty())
		Expect(podsIn(ctx, cluster.Client, ns)).To(BeEmpty())
		Expect(getIn(ctx, cluster.Client, &appsv1.Deployment{}, ns, "web")).To(BeFalse())
		Expect(getIn(ctx, cluster.Client, &corev1.ConfigMap{}, ns, "settings")).To(BeFalse())

		Eventually(recorder.seen).WithTimeout(clusterTimeout).Should(ContainElement("DELETED ConfigMap settings"))
		deletions := recorder.inOrder(watch.Deleted)
		Expect(deletions).To(ContainElements(HaveField("Kind", "ReplicaSet"), event{Type: watch.Deleted, Kind: "Deployment", Name: "web"}))
		Expect(countKind(deletions, "Pod")).To(BeNumerically(">=", 2))
		Expect(deletions[len(deletions)-1]).To(Equal(event{Type: watch.Deleted, Kind: "ConfigMap", Name: "settings"}),
			"the ConfigMap goes after the last pod, ReplicaSet and the Deployment: %v", deletions)
	})

	It("deletes a Deployment in background by default: it is gone at once, and the garbage collector removes its ReplicaSet and pods afterwards", func() {
		ns, h := setUp("background")
		applyUntilReady(h,
			workload(ns, "web", 2),
			configMap(ns, "settings", nil, "delete-order", "1"))
		Expect(h.inventory).To(HaveEach(HaveField("DeletePropagation", BeEmpty())), "the default is left out of the inventory")

		res, err := h.delete(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeTrue(), "both waves finish in one pass: the Deployment is gone with its delete request")
		Expect(actionsOf(res)).To(Equal([]string{"Deleted apps/Deployment " + ns + "/web", "Deleted ConfigMap " + ns + "/settings"}))
		Expect(getIn(ctx, cluster.Client, &appsv1.Deployment{}, ns, "web")).To(BeFalse())

		Eventually(func() []appsv1.ReplicaSet { return replicaSetsIn(ctx, cluster.Client, ns) }).WithTimeout(clusterTimeout).Should(BeEmpty())
		Eventually(func() []corev1.Pod { return podsIn(ctx, cluster.Client, ns) }).WithTimeout(clusterTimeout).Should(BeEmpty())
	})

	It("prunes a Deployment that left the manifests in foreground, as its inventory item remembers", func() {
		ns, h := setUp("prune")
		applyUntilReady(h,
			workload(ns, "web", 2, "delete-propagation", "foreground"),
			configMap(ns, "settings", nil))

		res, err := h.apply(ctx, configMap(ns, "settings", nil))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())
		Expect(res.Waiting).To(HaveExactElements(HaveField("String()",
			"apps/Deployment "+ns+"/web: being deleted (foreground: waiting for the garbage collector to remove its dependents)")))

		applyUntilReady(h, configMap(ns, "settings", nil))
		Expect(getIn(ctx, cluster.Client, &appsv1.Deployment{}, ns, "web")).To(BeFalse())
		Expect(replicaSetsIn(ctx, cluster.Client, ns)).To(BeEmpty(), "pruned in foreground, the Deployment went after its ReplicaSet")
		Expect(podsIn(ctx, cluster.Client, ns)).To(BeEmpty())
		Expect(itemKeys(h.inventory)).To(Equal([]string{"ConfigMap " + ns + "/settings"}))
	})

	It("recreates a Deployment with update-policy recreate in foreground only after the old one's pods are gone", func() {
		ns, h := setUp("recreate")
		applyUntilReady(h, workload(ns, "web", 2, "update-policy", "recreate", "delete-propagation", "foreground"))
		var old appsv1.Deployment
		Expect(getIn(ctx, cluster.Client, &old, ns, "web")).To(BeTrue())
		recorder := recordEvents(ctx, cluster, ns)

		changed := workload(ns, "web", 2, "update-policy", "recreate", "delete-propagation", "foreground")
		changed.Spec.Template.Spec.Containers[0].Image = "example.invalid/app:2"
		applyUntilReady(h, changed)
		var recreated appsv1.Deployment
		Expect(getIn(ctx, cluster.Client, &recreated, ns, "web")).To(BeTrue())
		Expect(recreated.UID).NotTo(Equal(old.UID))

		events := recorder.inOrder(watch.Added, watch.Deleted)
		created := slices.Index(events, event{Type: watch.Added, Kind: "Deployment", Name: "web"})
		Expect(created).To(BeNumerically(">=", 0), "no creation of the new Deployment in %v", events)
		before := events[:created]
		Expect(before).To(ContainElement(event{Type: watch.Deleted, Kind: "Deployment", Name: "web"}))
		Expect(before).To(ContainElement(And(HaveField("Type", watch.Deleted), HaveField("Kind", "ReplicaSet"))))
		Expect(countKind(slices.DeleteFunc(slices.Clone(before), func(e event) bool { return e.Type != watch.Deleted }), "Pod")).
			To(Equal(2), "both old pods went before the new Deployment was created: %v", events)
	})

	It("purges a Job in foreground: the next wave is applied only after its pod is gone", func() {
		ns, h := setUp("purge")
		recorder := recordEvents(ctx, cluster, ns)
		applyUntilReady(h,
			oneShot(ns, "migrate", "purge-order", "0", "delete-propagation", "foreground"),
			configMap(ns, "settings", nil, "apply-order", "1"))
		Expect(getIn(ctx, cluster.Client, &batchv1.Job{}, ns, "migrate")).To(BeFalse())
		Expect(podsIn(ctx, cluster.Client, ns)).To(BeEmpty(), "purged in foreground, the Job went after its pod")
		Expect(h.inventory).To(ContainElement(And(HaveField("Name", "migrate"), HaveField("Phase", manifests.PhaseCompleted))))

		Eventually(recorder.seen).WithTimeout(clusterTimeout).Should(ContainElement("ADDED ConfigMap settings"))
		events := recorder.inOrder(watch.Added, watch.Deleted)
		created := slices.Index(events, event{Type: watch.Added, Kind: "ConfigMap", Name: "settings"})
		Expect(events[:created]).To(ContainElement(And(HaveField("Type", watch.Deleted), HaveField("Kind", "Pod"))),
			"the Job's pod went before the next wave: %v", events)
	})

	It("leaves a Deployment with delete-policy orphan in place, with its ReplicaSet and pods, and without the owner label", func() {
		ns, h := setUp("orphan")
		applyUntilReady(h, workload(ns, "web", 2, "delete-policy", "orphan", "delete-propagation", "foreground"))

		res, err := h.delete(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeTrue())
		Expect(actionsOf(res)).To(Equal([]string{"Orphaned apps/Deployment " + ns + "/web"}))

		var deploy appsv1.Deployment
		Expect(cluster.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &deploy)).To(Succeed())
		Expect(deploy.DeletionTimestamp).To(BeNil())
		Expect(deploy.Labels).NotTo(HaveKey(prefix + "/owner-id"))
		Expect(deploy.Annotations).NotTo(HaveKey(prefix + "/owner"))
		sets := replicaSetsIn(ctx, cluster.Client, ns)
		Expect(sets).To(HaveLen(1))
		Expect(metav1.IsControlledBy(&sets[0], &deploy)).To(BeTrue())
		Expect(sets[0].DeletionTimestamp).To(BeNil())
		pods := podsIn(ctx, cluster.Client, ns)
		Expect(pods).To(HaveLen(2))
		for _, pod := range pods {
			Expect(pod.DeletionTimestamp).To(BeNil())
			Expect(pod.Status.Phase).To(Equal(corev1.PodRunning))
		}
	})

	It("deletes a Namespace of the manifests and is done only once the namespace controller has emptied and removed it", func() {
		_, h := setUp("namespace")
		ns := "tracked-" + h.owner.Namespace
		namespace := &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: ns},
		}
		applyUntilReady(h, namespace, workload(ns, "web", 2, "apply-order", "1"))
		// An object wavekit does not own, which a finalizer keeps: the
		// namespace controller cannot finish before the test lets it go.
		held := configMap(ns, "held", nil)
		held.Annotations = nil
		held.Finalizers = []string{"example.com/hold"}
		Expect(cluster.Client.Create(ctx, held)).To(Succeed())

		terminating := "Namespace " + ns + ": being deleted (Terminating: the namespace controller is removing the objects in it)"
		Eventually(func(g Gomega) {
			res, err := h.delete(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(res.Done).To(BeFalse())
			g.Expect(res.Waiting).To(HaveExactElements(HaveField("String()", terminating)))
		}).WithTimeout(clusterTimeout).WithPolling(200 * time.Millisecond).Should(Succeed())
		Expect(getIn(ctx, cluster.Client, &appsv1.Deployment{}, ns, "web")).To(BeFalse(), "the Deployment in it went first")
		Eventually(func() []corev1.Pod { return podsIn(ctx, cluster.Client, ns) }).WithTimeout(clusterTimeout).Should(BeEmpty())

		for range 3 { // the namespace controller is done with everything but the held ConfigMap
			res, err := h.delete(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Done).To(BeFalse())
			Expect(res.Waiting).To(HaveExactElements(HaveField("String()", terminating)))
			Expect(cluster.Client.Get(ctx, client.ObjectKeyFromObject(namespace), namespace)).To(Succeed())
			Expect(namespace.Status.Phase).To(Equal(corev1.NamespaceTerminating))
		}

		Expect(cluster.Client.Get(ctx, client.ObjectKeyFromObject(held), held)).To(Succeed())
		held.Finalizers = nil
		Expect(cluster.Client.Update(ctx, held)).To(Succeed())
		deleteUntilDone(h)
		err := cluster.Client.Get(ctx, client.ObjectKeyFromObject(namespace), namespace)
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the pass is done while the Namespace exists: %v", err)
	})

	// Drift ignore rules against an autoscaler-like writer (otherwriters_test.go).
	otherWriterSpecs(func() *testcluster.Env { return cluster }, setUp, applyUntilReady)

	// Jobs the cluster deletes before a pass saw them finish (runonce_test.go).
	runOnceSpecs(func() *testcluster.Env { return cluster }, setUp)
})

// workload is a Deployment of replicas pods labelled app=name, with wavekit
// annotations from suffix/value pairs.
func workload(ns, name string, replicas int32, pairs ...string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations(pairs...)},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "example.invalid/app:1"}}},
			},
		},
	}
}

// oneShot is a Job of one pod that succeeds, with wavekit annotations from
// suffix/value pairs.
func oneShot(ns, name string, pairs ...string) *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations(pairs...)},
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr.To(int32(0)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "run", Image: "example.invalid/run:1"}},
				},
			},
		},
	}
}

// getIn tells whether the object named name exists in ns, reading it into obj.
func getIn(ctx context.Context, c client.Client, obj client.Object, ns, name string) bool {
	err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return false
	}
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return true
}

func replicaSetsIn(ctx context.Context, c client.Client, ns string) []appsv1.ReplicaSet {
	var sets appsv1.ReplicaSetList
	ExpectWithOffset(1, c.List(ctx, &sets, client.InNamespace(ns))).To(Succeed())
	return sets.Items
}

func podsIn(ctx context.Context, c client.Client, ns string) []corev1.Pod {
	var pods corev1.PodList
	ExpectWithOffset(1, c.List(ctx, &pods, client.InNamespace(ns))).To(Succeed())
	return pods.Items
}

// event is one creation or deletion that an eventRecorder saw.
type event struct {
	Type       watch.EventType // Added or Deleted
	Kind, Name string
	version    string // the resourceVersion of the change
}

// eventRecorder watches the pods, ReplicaSets, Deployments and ConfigMaps
// of a namespace and keeps their creations and deletions. Each event's
// resourceVersion orders it among the others, across kinds, whatever order
// the four watches deliver them in.
type eventRecorder struct {
	mu     sync.Mutex
	events []event
}

var recordedResources = []schema.GroupVersionResource{
	{Version: "v1", Resource: "pods"},
	{Group: "apps", Version: "v1", Resource: "replicasets"},
	{Group: "apps", Version: "v1", Resource: "deployments"},
	{Version: "v1", Resource: "configmaps"},
}

// recordEvents starts watching ns from the current state of each resource;
// the watches end with the spec.
func recordEvents(ctx context.Context, cluster *testcluster.Env, ns string) *eventRecorder {
	dc, err := dynamic.NewForConfig(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(ctx)
	DeferCleanup(cancel)
	r := &eventRecorder{}
	for _, gvr := range recordedResources {
		resource := dc.Resource(gvr).Namespace(ns)
		list, err := resource.List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		w, err := resource.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
		Expect(err).NotTo(HaveOccurred())
		go r.record(w)
	}
	return r
}

func (r *eventRecorder) record(w watch.Interface) {
	defer GinkgoRecover()
	defer w.Stop()
	for e := range w.ResultChan() {
		if e.Type != watch.Added && e.Type != watch.Deleted {
			continue
		}
		obj := e.Object.(*unstructured.Unstructured)
		r.mu.Lock()
		r.events = append(r.events, event{Type: e.Type, Kind: obj.GetKind(), Name: obj.GetName(), version: obj.GetResourceVersion()})
		r.mu.Unlock()
	}
}

// seen lists the events seen so far as "Type Kind name", in arrival order.
func (r *eventRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.events))
	for _, e := range r.events {
		out = append(out, string(e.Type)+" "+e.Kind+" "+e.Name)
	}
	return out
}

// inOrder returns the events of the given type in the order they happened.
func (r *eventRecorder) inOrder(types ...watch.EventType) []event {
	r.mu.Lock()
	var out []event
	for _, e := range r.events {
		if slices.Contains(types, e.Type) {
			out = append(out, e)
		}
	}
	r.mu.Unlock()
	var failed error
	slices.SortFunc(out, func(a, b event) int {
		cmp, err := resourceversion.CompareResourceVersion(a.version, b.version)
		if err != nil && failed == nil {
			failed = fmt.Errorf("comparing the resourceVersions of %s %s and %s %s: %w", a.Kind, a.Name, b.Kind, b.Name, err)
		}
		return cmp
	})
	Expect(failed).NotTo(HaveOccurred())
	for i := range out {
		out[i].version = ""
	}
	return out
}

func countKind(events []event, kind string) int {
	n := 0
	for _, e := range events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}
