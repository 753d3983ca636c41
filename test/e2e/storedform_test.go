package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// storedClasses are the classes of field that charts render and the API
// server stores otherwise (testdata/stored renders one per value of class):
// before wavekit compared in the API server's terms, each looked drifted for
// ever, and its Deployment was written until the generation reached
// thousands.
var storedClasses = []string{"hostNetwork", "minReadySeconds", "probe", "serviceLinks", "emptyEnv", "quantities", "service", "customResource"}

// idleWindow is how long the installed Components are watched doing nothing.
const idleWindow = 60 * time.Second

// Charts as popular charts render them, on the whole local cluster (the
// Deployment controller writes its revision annotation and status, kwok
// runs the pods), with the operator's binary and the chart's RBAC: each
// installs to Ready and then costs nothing; a change by another writer is
// still corrected, and a fight with one stops by itself.
var _ = Describe("fields the API server stores otherwise than rendered", Ordered, func() {
	var (
		env     *testcluster.Env
		ctx     = context.Background()
		metrics string // base URL of the operator's metrics
	)
	const ns = "stored"

	BeforeAll(func() {
		env = startControlPlaneWith(testcluster.Options{Controllers: true, ExtraCRDDirs: []string{filepath.Join(testdataSource("crds"))}})
		metrics = startStoredOperator(ctx, env)
		createNamespace(ctx, env, ns)
	})

	It("installs each class to Ready, then writes nothing and reports no drift for a minute", func() {
		components := map[string]*v1alpha1.Component{}
		for _, class := range storedClasses {
			components[class] = createComponent(ctx, env, ns, strings.ToLower(class), "stored", map[string]any{"class": class})
		}
		for class, c := range components {
			Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(readinessTimeout).
				Should(Equal("True/Ready"), func() string { return class + ": " + readyMessage(ctx, env, c) })
		}
		Eventually(func() []string { return deploymentsNotAvailable(ctx, env, ns) }).WithTimeout(readinessTimeout).Should(BeEmpty())

		before := operatorRequests(metrics)
		generations := deploymentGenerations(ctx, env, ns)
		Expect(generations).To(HaveLen(6))
		Consistently(func() map[string]int64 { return deploymentGenerations(ctx, env, ns) }).
			WithTimeout(idleWindow).WithPolling(5*time.Second).Should(Equal(generations), "a Deployment was written while idle")
		after := operatorRequests(metrics)
		Expect(after.minus(before)).To(BeEmpty(), "requests the operator sent in %s of idle: %v", idleWindow, after.minus(before))
		for name, generation := range generations {
			Expect(generation).To(BeEquivalentTo(1), name)
		}
		for class, c := range components {
			Expect(readyReason(ctx, env, c)).To(Equal("True/Ready"), class)
			Expect(eventReasons(ctx, env, c)).NotTo(ContainElement("Updated"), "%s: a drift was corrected", class)
		}
		gadget := &unstructured.Unstructured{}
		gadget.SetAPIVersion("e2e.wavekit.dev/v1")
		gadget.SetKind("Gadget")
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "customresource"}, gadget)).To(Succeed())
		Expect(gadget.Object["spec"]).To(Equal(map[string]any{"color": "red", "size": int64(1)}), "pruned and defaulted by the schema")
	})

	It("still corrects a rendered field someone changes, a rendered zero value included", func() {
		edit := func(name string, change func(*appsv1.Deployment)) {
			Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
				d := &appsv1.Deployment{}
				if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
					return err
				}
				change(d)
				return env.Client.Update(ctx, d, client.FieldOwner("kubectl-edit"))
			})).To(Succeed())
		}
		edit("hostnetwork", func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.HostNetwork = true
			d.Spec.Template.Spec.Containers[0].Image = "example.invalid/edited:2"
		})
		Eventually(func() (string, error) {
			d := &appsv1.Deployment{}
			err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "hostnetwork"}, d)
			return fmt.Sprintf("hostNetwork=%t image=%s", d.Spec.Template.Spec.HostNetwork, d.Spec.Template.Spec.Containers[0].Image), err
		}).WithTimeout(30 * time.Second).Should(Equal("hostNetwork=false image=example.invalid/app:1"))
	})

	It("keeps kubectl rollout restart and another writer's label through an upgrade: no rollout back", func() {
		c := createComponent(ctx, env, ns, "shop", "stored", map[string]any{"class": "app", "replicas": 2})
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(readinessTimeout).Should(Equal("True/Ready"))

		restart := `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-25T07:00:00Z"}}}}}`
		patchDeployment(ctx, env, ns, "shop", "kubectl-rollout", types.StrategicMergePatchType, restart)
		patchDeployment(ctx, env, ns, "shop", "mesh-injector", types.MergePatchType, `{"metadata":{"labels":{"mesh.example/injected":"true"}}}`)
		Eventually(func() []string { return deploymentsNotAvailable(ctx, env, ns) }).WithTimeout(readinessTimeout).Should(BeEmpty())
		Expect(replicaSetsOf(ctx, env, ns, "shop")).To(HaveLen(2), "the restart rolled out")

		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
		changed := c.DeepCopy()
		changed.Spec.Values = jsonValues(map[string]any{"class": "app", "replicas": 3})
		Expect(env.Client.Patch(ctx, changed, client.MergeFrom(c))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
			g.Expect(c.Status.ObservedGeneration).To(Equal(c.Generation))
			g.Expect(readyReason(ctx, env, c)).To(Equal("True/Ready"))
		}).WithTimeout(readinessTimeout).Should(Succeed())

		d := &appsv1.Deployment{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, d)).To(Succeed())
		Expect(*d.Spec.Replicas).To(BeEquivalentTo(3))
		Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue("kubectl.kubernetes.io/restartedAt", "2026-11-25T07:00:00Z"))
		Expect(d.Labels).To(HaveKeyWithValue("mesh.example/injected", "true"))
		Expect(d.Annotations).To(HaveKeyWithValue("deployment.kubernetes.io/revision", "2"), "no rollout back to the first ReplicaSet")
		Expect(replicaSetsOf(ctx, env, ns, "shop")).To(HaveLen(2), "no new ReplicaSet")
	})

	It("tells an install and an upgrade in two Events each, and a deletion in one", func() {
		c := createComponent(ctx, env, ns, "told", "stored", map[string]any{"class": "app", "replicas": 2})
		ready := func() {
			GinkgoHelper()
			Eventually(func(g Gomega) {
				g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
				g.Expect(c.Status.ObservedGeneration).To(Equal(c.Generation))
				g.Expect(readyReason(ctx, env, c)).To(Equal("True/Ready"))
			}).WithTimeout(readinessTimeout).Should(Succeed())
		}
		ready()
		Eventually(func() map[string]int32 { return eventCounts(ctx, env, c) }).
			Should(Equal(map[string]int32{"Created": 1, "Ready": 1}), "Events of the install")

		changed := c.DeepCopy()
		changed.Spec.Values = jsonValues(map[string]any{"class": "app", "replicas": 2, "image": "example.invalid/app:2"})
		Expect(env.Client.Patch(ctx, changed, client.MergeFrom(c))).To(Succeed())
		ready()
		Eventually(func() map[string]int32 { return eventCounts(ctx, env, c) }).
			Should(Equal(map[string]int32{"Created": 1, "Ready": 2, "Updated": 1}), "Events of the install and the upgrade")

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		Eventually(func() error { return env.Client.Get(ctx, client.ObjectKeyFromObject(c), c) }).
			WithTimeout(readinessTimeout).Should(Satisfy(apierrors.IsNotFound))
		Eventually(func() map[string]int32 { return eventCounts(ctx, env, c) }).
			Should(Equal(map[string]int32{"Created": 1, "Ready": 2, "Updated": 1, "Deleted": 1}), "Events of the deletion")
	})

	It("writes the status once while a Deployment rolls out, not at every replica, and names its progress on a timeout only", func() {
		c := createComponent(ctx, env, ns, "rolling", "stored", map[string]any{"class": "app", "replicas": 6})
		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(readinessTimeout).Should(Equal("True/Ready"))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())

		statuses := watchStatuses(ctx, env, c)
		changed := c.DeepCopy()
		changed.Spec.Values = jsonValues(map[string]any{"class": "app", "replicas": 6, "image": "example.invalid/app:2"})
		Expect(env.Client.Patch(ctx, changed, client.MergeFrom(c))).To(Succeed())
		Eventually(func() []string { return statuses.seen() }).WithTimeout(readinessTimeout).Should(ContainElement(HavePrefix("True/Ready")))
		Expect(statuses.seen()).To(HaveExactElements(
			"False/Processing: waiting for wave 0: apps/Deployment "+ns+"/rolling: Updating, InProgress",
			HavePrefix("True/Ready: every object is applied and ready"),
		), "one status write while 6 replicas roll out, one when they are done")
		Expect(deploymentGenerations(ctx, env, ns)).To(HaveKeyWithValue("rolling", int64(2)))
	})

	It("stops a fight with another writer over a rendered field: WriteLoop, not a storm", func() {
		c := &v1alpha1.Component{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "quantities"}, c)).To(Succeed())
		fightCtx, stop := context.WithCancel(ctx)
		defer stop()
		fights := make(chan []time.Time, 1)
		go func() { fights <- fightOverLabel(fightCtx, env, ns, "quantities") }()

		Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(readinessTimeout).Should(Equal("False/WriteLoop"))
		message := readyMessage(ctx, env, c)
		Expect(message).To(ContainSubstring("apps/Deployment stored/quantities"))
		Expect(message).To(ContainSubstring("/metadata/labels/tier"))
		// The Event is sent after the status write that names the loop.
		Eventually(func() []string { return eventReasons(ctx, env, c) }).Should(ContainElement("WriteLoop"))
		pausedUntil := retryTime(message)

		// Paused: the other writer's value stays, however often it writes,
		// for 5 s or to the end of the pause if a slow machine saw it late.
		if hold := min(5*time.Second, time.Until(pausedUntil)-time.Second); hold > 0 {
			Consistently(func() string { return labelOf(ctx, env, ns, "quantities", "tier") }).
				WithTimeout(hold).Should(Equal("fighter"))
		}
		stop()
		writes := <-fights
		Expect(writtenBefore(writes, pausedUntil)).To(BeNumerically("<=", 8),
			"the fighter had to set its value this many times before the pause ends at %s: at %v", pausedUntil, writes)
	})
})

// retryTime reads the time a write-loop message says wavekit writes again.
func retryTime(message string) time.Time {
	GinkgoHelper()
	found := regexp.MustCompile(`stopped writing it until (\S+?);`).FindStringSubmatch(message)
	Expect(found).To(HaveLen(2), "no retry time in %q", message)
	at, err := time.Parse(time.RFC3339, found[1])
	Expect(err).NotTo(HaveOccurred())
	return at
}

// writtenBefore counts the times before t.
func writtenBefore(times []time.Time, t time.Time) int {
	n := 0
	for _, at := range times {
		if at.Before(t) {
			n++
		}
	}
	return n
}

// patchDeployment patches the Deployment ns/name as manager would.
func patchDeployment(ctx context.Context, env *testcluster.Env, ns, name, manager string, kind types.PatchType, patch string) {
	GinkgoHelper()
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	Expect(env.Client.Patch(ctx, d, client.RawPatch(kind, []byte(patch)), client.FieldOwner(manager))).To(Succeed())
}

// replicaSetsOf names the ReplicaSets of ns whose owner is the Deployment name.
func replicaSetsOf(ctx context.Context, env *testcluster.Env, ns, name string) []string {
	GinkgoHelper()
	var list appsv1.ReplicaSetList
	Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, rs := range list.Items {
		if owner := metav1.GetControllerOf(&rs); owner != nil && owner.Name == name {
			out = append(out, rs.Name)
		}
	}
	return out
}

// startStoredOperator runs the operator's binary with the chart's RBAC for
// what testdata/stored deploys, serving it, with plain-HTTP metrics whose
// base URL it returns.
func startStoredOperator(ctx context.Context, env *testcluster.Env) string {
	GinkgoHelper()
	binary := buildOperatorBinary()
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wavekit-system"}})).To(Succeed())
	verbs := []any{"get", "list", "watch", "create", "update", "patch", "delete"}
	applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{"rbac": map[string]any{"extraRules": []any{
		map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps", "services"}, "verbs": verbs},
		map[string]any{"apiGroups": []any{"apps"}, "resources": []any{"deployments"}, "verbs": verbs},
		map[string]any{"apiGroups": []any{"e2e.wavekit.dev"}, "resources": []any{"gadgets"}, "verbs": verbs},
	}}})
	metrics := "http://" + freeLocalAddress()
	startOperatorBinary(binary, serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator"),
		"--source", "stored="+testdataSource("stored"),
		"--metrics-bind-address", strings.TrimPrefix(metrics, "http://"), "--metrics-secure=false")
	Eventually(func() (int, error) { return getMetrics(metrics, "") }).WithTimeout(60 * time.Second).Should(Equal(200))
	return metrics
}

// requestCounts are the operator's requests to the API server by verb, as
// its wavekit_api_requests_total metric counts them.
type requestCounts map[string]float64

var requestsMetric = regexp.MustCompile(`(?m)^wavekit_api_requests_total\{verb="([a-z]+)"\} (\S+)$`)

func operatorRequests(base string) requestCounts {
	GinkgoHelper()
	counts := requestCounts{}
	for _, m := range requestsMetric.FindAllStringSubmatch(readMetrics(base, ""), -1) {
		value, err := strconv.ParseFloat(m[2], 64)
		Expect(err).NotTo(HaveOccurred())
		counts[m[1]] = value
	}
	return counts
}

// minus returns the verbs whose count grew since before (watches, which
// stay open, left out).
func (c requestCounts) minus(before requestCounts) map[string]float64 {
	grown := map[string]float64{}
	for verb, n := range c {
		if verb != "watch" && n > before[verb] {
			grown[verb] = n - before[verb]
		}
	}
	return grown
}

// deploymentGenerations returns the generation of every Deployment in ns.
func deploymentGenerations(ctx context.Context, env *testcluster.Env, ns string) map[string]int64 {
	GinkgoHelper()
	var list appsv1.DeploymentList
	Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	out := map[string]int64{}
	for _, d := range list.Items {
		out[d.Name] = d.Generation
	}
	return out
}

// deploymentsNotAvailable names the Deployments of ns that are not Available.
func deploymentsNotAvailable(ctx context.Context, env *testcluster.Env, ns string) []string {
	GinkgoHelper()
	var list appsv1.DeploymentList
	Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, d := range list.Items {
		if d.Status.AvailableReplicas < ptrValue(d.Spec.Replicas) || d.Status.ObservedGeneration < d.Generation {
			out = append(out, d.Name)
		}
	}
	return out
}

// eventReasons returns the reasons of the Events about c.
func eventReasons(ctx context.Context, env *testcluster.Env, c *v1alpha1.Component) []string {
	GinkgoHelper()
	var events corev1.EventList
	Expect(env.Client.List(ctx, &events, client.InNamespace(c.Namespace))).To(Succeed())
	var reasons []string
	for _, e := range events.Items {
		if e.InvolvedObject.Kind == "Component" && e.InvolvedObject.Name == c.Name {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}

// eventCounts returns how often each reason was recorded about c: an Event
// repeated as a series counts each time.
func eventCounts(ctx context.Context, env *testcluster.Env, c *v1alpha1.Component) map[string]int32 {
	GinkgoHelper()
	var events corev1.EventList
	Expect(env.Client.List(ctx, &events, client.InNamespace(c.Namespace))).To(Succeed())
	counts := map[string]int32{}
	for _, e := range events.Items {
		if e.InvolvedObject.Kind == "Component" && e.InvolvedObject.Name == c.Name {
			counts[e.Reason] += max(e.Count, 1)
		}
	}
	return counts
}

func readyMessage(ctx context.Context, env *testcluster.Env, c *v1alpha1.Component) string {
	GinkgoHelper()
	var got v1alpha1.Component
	Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got)).To(Succeed())
	if cond := got.Status.ReadyCondition(); cond != nil {
		return cond.Message
	}
	return ""
}

func labelOf(ctx context.Context, env *testcluster.Env, ns, name, label string) string {
	GinkgoHelper()
	d := &appsv1.Deployment{}
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d)).To(Succeed())
	return d.Labels[label]
}

// fightOverLabel plays a second controller that wants the Deployment's
// label tier to be "fighter" and sets it back whenever it is not, until ctx
// ends; it returns when it had to.
func fightOverLabel(ctx context.Context, env *testcluster.Env, ns, name string) []time.Time {
	defer GinkgoRecover()
	var fights []time.Time
	_ = wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		d := &appsv1.Deployment{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		if d.Labels["tier"] == "fighter" {
			return false, nil
		}
		d.Labels["tier"] = "fighter"
		err := env.Client.Update(ctx, d, client.FieldOwner("fighter"))
		if err == nil {
			fights = append(fights, time.Now())
		} else if !apierrors.IsConflict(err) && ctx.Err() == nil {
			return false, err
		}
		return false, nil
	})
	return fights
}

// statusLog records each Ready condition a Component's status showed, in
// order, from a watch: one entry per status write that changed it.
type statusLog struct {
	mu      sync.Mutex
	entries []string
}

func (l *statusLog) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries)
}

// watchStatuses watches c from its current resourceVersion and logs every
// change of its status as "Status/Reason: message" of its Ready condition.
func watchStatuses(ctx context.Context, env *testcluster.Env, c *v1alpha1.Component) *statusLog {
	GinkgoHelper()
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	Expect(err).NotTo(HaveOccurred())
	w, err := wc.Watch(ctx, &v1alpha1.ComponentList{}, client.InNamespace(c.Namespace),
		client.MatchingFields{"metadata.name": c.Name}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: c.ResourceVersion}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.Stop)
	log := &statusLog{}
	last := c.Status.DeepCopy()
	go func() {
		for event := range w.ResultChan() {
			next, ok := event.Object.(*v1alpha1.Component)
			if !ok || equality.Semantic.DeepEqual(next.Status, *last) {
				continue
			}
			last = next.Status.DeepCopy()
			entry := "no Ready condition"
			if ready := meta.FindStatusCondition(next.Status.Conditions, "Ready"); ready != nil {
				entry = string(ready.Status) + "/" + ready.Reason + ": " + ready.Message
			}
			log.mu.Lock()
			log.entries = append(log.entries, entry)
			log.mu.Unlock()
		}
	}()
	return log
}
