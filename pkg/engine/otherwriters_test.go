package engine_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// scalerUpdates is how many times the autoscaler-like writer scales, one
// update every scalerPeriod: 10 s, as an autoscaler under load would.
const (
	scalerUpdates = 100
	scalerPeriod  = 100 * time.Millisecond
)

// otherWriterSpecs are the specs of a second writer of a component's
// Deployment, an autoscaler that sets spec.replicas through the scale
// subresource, on the cluster with controllers (so that the Deployment
// rolls out and the pass can be Done). Each writer update is followed by
// one pass, once the applier's cache holds it, as the watch event would
// make a reconciler run one.
func otherWriterSpecs(clusterOf func() *testcluster.Env, setUp func(string) (string, *harness), applyUntilReady func(*harness, ...any)) {
	ctx := context.Background()
	replicasIgnored := manifests.DriftSettings{Ignore: []manifests.IgnoreRule{{
		Paths: []string{"/spec/replicas"}, Target: &manifests.ObjectSelector{Group: "apps", Kind: "Deployment"},
	}}}

	// scale sets the Deployment's replicas as an autoscaler does and
	// returns the resourceVersion it wrote.
	scale := func(ns, name string, replicas int32) string {
		clientset, err := kubernetes.NewForConfig(clusterOf().Config)
		Expect(err).NotTo(HaveOccurred())
		written, err := clientset.AppsV1().Deployments(ns).UpdateScale(ctx, name,
			&autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: autoscalingv1.ScaleSpec{Replicas: replicas}},
			metav1.UpdateOptions{FieldManager: "autoscaler"})
		Expect(err).NotTo(HaveOccurred())
		return written.ResourceVersion
	}
	// passAfter runs one pass once the applier's cache holds version or a
	// later one (the Deployment controller writes status right after).
	passAfter := func(h *harness, ns, name, version string, objects ...any) {
		Eventually(func() (int, error) {
			cached := &appsv1.Deployment{}
			if err := h.target.Cache.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cached); err != nil {
				return 0, err
			}
			return resourceversion.CompareResourceVersion(cached.ResourceVersion, version)
		}).WithTimeout(clusterTimeout).Should(BeNumerically(">=", 0))
		_, err := h.apply(ctx, objects...)
		Expect(err).NotTo(HaveOccurred())
	}
	replicasOf := func(ns, name string) int32 {
		d := &appsv1.Deployment{}
		Expect(clusterOf().Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d)).To(Succeed())
		return *d.Spec.Replicas
	}
	deploymentWrites := func(h *harness) int {
		n := 0
		for key, count := range h.counter.Snapshot() {
			verb, resource, _ := strings.Cut(key, " ")
			if resource == "deployments" && apicount.IsWrite(verb) {
				n += count
			}
		}
		return n
	}

	It("leaves spec.replicas to an autoscaler when an ignore rule names it: no write in 100 scalings, the pass done at the end, a later apply keeps the value", func() {
		ns, h := setUp("autoscaled")
		h.owner.Drift = replicasIgnored
		web := workload(ns, "web", 1, "update-policy", "replace")
		api := workload(ns, "api", 1, "update-policy", "ssa-merge")
		applyUntilReady(h, web, api)
		h.counter.Reset()

		ticker := time.NewTicker(scalerPeriod)
		defer ticker.Stop()
		for i := range scalerUpdates {
			<-ticker.C
			passAfter(h, ns, "web", scale(ns, "web", int32(2+i%3)), web, api)
		}
		last := int32(2 + (scalerUpdates-1)%3)
		Expect(deploymentWrites(h)).To(BeZero(), "wavekit wrote to a Deployment while the autoscaler scaled it: %v", h.counter.Snapshot())
		Expect(replicasOf(ns, "web")).To(Equal(last), "the autoscaler's value stays")
		applyUntilReady(h, web, api)
		Expect(deploymentWrites(h)).To(BeZero())

		// A change of the rendered Deployments is applied, without their
		// replicas: replace carries the live value, server-side apply leaves it out.
		passAfter(h, ns, "api", scale(ns, "api", 3), web, api)
		web.Spec.Template.Annotations = map[string]string{"revision": "2"}
		api.Spec.Template.Annotations = map[string]string{"revision": "2"}
		applyUntilReady(h, web, api)
		// A PUT may race the Deployment controller's last status write and
		// be refused (409): the next pass sends it again from a fresh read.
		Expect(h.counter.Count("update", "deployments")-h.counter.Conflicts("update", "deployments")).To(Equal(1),
			"one replace (PUT) of web accepted: %v", h.counter)
		Expect(h.counter.Snapshot()).To(HaveKeyWithValue("apply deployments", 1), "server-side apply of api")
		Expect(replicasOf(ns, "web")).To(Equal(last))
		Expect(replicasOf(ns, "api")).To(Equal(int32(3)))
	})

	It("fights the autoscaler without the rule: every scaling is undone by the next pass", func() {
		ns, h := setUp("fought")
		web := workload(ns, "web", 1)
		applyUntilReady(h, web)
		h.counter.Reset()

		const updates = 10 // enough to see the fight; the spec above runs the full window
		for i := range updates {
			Expect(scale(ns, "web", int32(2+i%3))).NotTo(BeEmpty())
			// A pass may meet a conflict (its PUT races the controller's status write): the next one corrects.
			Eventually(func() (int32, error) {
				_, err := h.apply(ctx, web)
				return replicasOf(ns, "web"), err
			}).WithTimeout(clusterTimeout).Should(Equal(int32(1)), "wavekit resets the replicas")
		}
		Expect(deploymentWrites(h)).To(BeNumerically(">=", updates), "one reset per scaling at least")
	})
}
