package e2e_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// eventLog records every version of the Deployments, ReplicaSets and
// ConfigMaps of one namespace that the API server stores, from watches
// started before the change under test.
type eventLog struct {
	mu      sync.Mutex
	objects []client.Object
	broken  []string // watch errors: the log would miss events
}

// startEventLog watches the Deployments, ReplicaSets and ConfigMaps of ns
// until the spec ends, and returns once the watches have delivered the
// objects that exist (so nothing written after it returns is missed).
func startEventLog(ctx context.Context, env *testcluster.Env, ns string) *eventLog {
	GinkgoHelper()
	clientset, err := kubernetes.NewForConfig(env.Config)
	Expect(err).NotTo(HaveOccurred())
	watches := map[string]func(context.Context, metav1.ListOptions) (watch.Interface, error){
		"Deployment": clientset.AppsV1().Deployments(ns).Watch,
		"ReplicaSet": clientset.AppsV1().ReplicaSets(ns).Watch,
		"ConfigMap":  clientset.CoreV1().ConfigMaps(ns).Watch,
	}
	log := &eventLog{}
	for kind, start := range watches {
		w, err := start(ctx, metav1.ListOptions{}) // starts with the objects that exist
		Expect(err).NotTo(HaveOccurred(), "watching %ss in %s", kind, ns)
		DeferCleanup(w.Stop)
		go log.record(w)
	}
	Eventually(func() []string { return log.kinds() }).WithTimeout(30*time.Second).
		Should(ContainElements("Deployment", "ReplicaSet", "ConfigMap"), "the watches delivered not every existing object")
	return log
}

// record adds what w delivers until it is stopped.
func (l *eventLog) record(w watch.Interface) {
	for event := range w.ResultChan() {
		l.mu.Lock()
		obj, ok := event.Object.(client.Object)
		switch {
		case ok && event.Type != watch.Error && obj.GetName() == "kube-root-ca.crt":
			// The namespace's CA bundle, of no interest to the specs.
		case ok && event.Type != watch.Error:
			l.objects = append(l.objects, obj)
		default:
			l.broken = append(l.broken, fmt.Sprintf("%s event: %v", event.Type, event.Object))
		}
		l.mu.Unlock()
	}
}

// kinds returns the kinds of the recorded objects.
func (l *eventLog) kinds() []string {
	var kinds []string
	for _, obj := range l.entries() {
		kinds = append(kinds, kindOf(obj))
	}
	return kinds
}

// entries returns the recorded objects in the order the API server stored
// them. The test's API server keeps everything in one etcd, whose revision
// of a write is the object's resourceVersion; clients must treat it as opaque
// elsewhere, but here it orders the writes of different kinds, which the
// arrival over three watches need not.
func (l *eventLog) entries() []client.Object {
	l.mu.Lock()
	defer l.mu.Unlock()
	Expect(l.broken).To(BeEmpty(), "a watch failed")
	out := slices.Clone(l.objects)
	slices.SortStableFunc(out, func(a, b client.Object) int { return revision(a) - revision(b) })
	return slices.CompactFunc(out, func(a, b client.Object) bool { return revision(a) == revision(b) })
}

func revision(obj client.Object) int {
	rv, err := strconv.Atoi(obj.GetResourceVersion())
	Expect(err).NotTo(HaveOccurred(), "resourceVersion of %s", obj.GetName())
	return rv
}

func kindOf(obj client.Object) string {
	switch obj.(type) {
	case *appsv1.Deployment:
		return "Deployment"
	case *appsv1.ReplicaSet:
		return "ReplicaSet"
	case *corev1.ConfigMap:
		return "ConfigMap"
	}
	return fmt.Sprintf("%T", obj)
}

// describeLog prints entries one a line, for failure messages.
func describeLog(entries []client.Object) string {
	var b strings.Builder
	for _, obj := range entries {
		fmt.Fprintf(&b, "%s %s %s", obj.GetResourceVersion(), kindOf(obj), obj.GetName())
		switch o := obj.(type) {
		case *appsv1.Deployment:
			fmt.Fprintf(&b, " generation=%d observed=%d image=%s replicas=%d updated=%d available=%d",
				o.Generation, o.Status.ObservedGeneration, imageOf(o.Spec.Template), o.Status.Replicas,
				o.Status.UpdatedReplicas, o.Status.AvailableReplicas)
		case *appsv1.ReplicaSet:
			fmt.Fprintf(&b, " image=%s spec=%d available=%d", imageOf(o.Spec.Template), ptrValue(o.Spec.Replicas), o.Status.AvailableReplicas)
		case *corev1.ConfigMap:
			fmt.Fprintf(&b, " data=%v", o.Data)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func imageOf(template corev1.PodTemplateSpec) string {
	if len(template.Spec.Containers) == 0 {
		return ""
	}
	return template.Spec.Containers[0].Image
}

func ptrValue(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// expectRolloutBeforeWave2 asserts the order of a rolling update of
// Deployment name (3 replicas, maxUnavailable 0, maxSurge 1) from image
// oldImage to newImage, and of the write of the wave-2 ConfigMap settings
// that the same change made: the ConfigMap gets wantData only after the
// Deployment controller has observed the change and the new ReplicaSet has
// all 3 replicas available and the old one none; the old ReplicaSet was
// scaled down one replica at a time, and never fewer than 3 replicas were
// available.
func expectRolloutBeforeWave2(entries []client.Object, name, oldImage, newImage, settings string, wantData map[string]string) {
	GinkgoHelper()
	log := describeLog(entries)
	write := slices.IndexFunc(entries, func(obj client.Object) bool {
		cm, ok := obj.(*corev1.ConfigMap)
		return ok && cm.Name == settings && maps.Equal(cm.Data, wantData)
	})
	Expect(write).To(BeNumerically(">", 0), "the wave-2 ConfigMap %s never got %v:\n%s", settings, wantData, log)

	var deployment *appsv1.Deployment
	newSet, oldSet := map[string]*appsv1.ReplicaSet{}, map[string]*appsv1.ReplicaSet{}
	for _, obj := range entries[:write] {
		switch o := obj.(type) {
		case *appsv1.Deployment:
			if o.Name == name {
				deployment = o
			}
		case *appsv1.ReplicaSet:
			if imageOf(o.Spec.Template) == newImage {
				newSet[o.Name] = o
			} else {
				oldSet[o.Name] = o
			}
		}
	}
	Expect(deployment).NotTo(BeNil(), "no Deployment %s before the ConfigMap's write:\n%s", name, log)
	Expect(imageOf(deployment.Spec.Template)).To(Equal(newImage), "the ConfigMap was written before the Deployment's change:\n%s", log)
	Expect(deployment.Status.ObservedGeneration).To(Equal(deployment.Generation),
		"the ConfigMap was written before the Deployment controller observed the change:\n%s", log)
	Expect(deployment.Status).To(And(HaveField("Replicas", int32(3)), HaveField("UpdatedReplicas", int32(3)),
		HaveField("AvailableReplicas", int32(3))), "the ConfigMap was written before the rollout finished:\n%s", log)
	Expect(newSet).To(HaveLen(1), "one new ReplicaSet:\n%s", log)
	Expect(oldSet).To(HaveLen(1), "one old ReplicaSet:\n%s", log)
	for _, set := range newSet {
		Expect(set.Status.AvailableReplicas).To(Equal(int32(3)), "the new ReplicaSet had not 3 available replicas before the ConfigMap's write:\n%s", log)
	}
	for _, set := range oldSet {
		Expect(ptrValue(set.Spec.Replicas)).To(BeZero(), "the old ReplicaSet was not scaled down before the ConfigMap's write:\n%s", log)
		Expect(imageOf(set.Spec.Template)).To(Equal(oldImage))
	}
	expectScaledDownInSteps(entries, oldImage, log)
}

// expectScaledDownInSteps asserts that the ReplicaSet of oldImage went from
// 3 replicas to none one at a time, and that no version of a Deployment had
// fewer than 3 available replicas.
func expectScaledDownInSteps(entries []client.Object, oldImage, log string) {
	GinkgoHelper()
	var steps []int32
	for _, obj := range entries {
		switch o := obj.(type) {
		case *appsv1.ReplicaSet:
			if imageOf(o.Spec.Template) == oldImage && (len(steps) == 0 || steps[len(steps)-1] != ptrValue(o.Spec.Replicas)) {
				steps = append(steps, ptrValue(o.Spec.Replicas))
			}
		case *appsv1.Deployment:
			Expect(o.Status.AvailableReplicas).To(BeNumerically(">=", 3), "fewer than 3 available replicas (maxUnavailable 0):\n%s", log)
		}
	}
	Expect(steps).To(Equal([]int32{3, 2, 1, 0}), "the old ReplicaSet's replicas:\n%s", log)
}
