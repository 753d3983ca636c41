package engine_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// A custom resource that reports status.phase (the test plays its own
// controller: the CRD is the test's, no Kubernetes controller is stood in
// for) is judged by a CEL health check, wave by wave.
var _ = Describe("health checks", func() {
	var (
		ctx   context.Context
		h     *harness
		ns    string
		group string
	)
	BeforeEach(func() {
		ctx, ns, h = newSpec("health")
		group = ns + ".health.wavekit.dev"
		h.applyUntilDone(ctx, gadgetCRD(group))
		DeferCleanup(func() {
			Expect(env.Client.Delete(context.Background(), get(context.Background(), "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "gadgets."+group))).To(Succeed())
		})
	})
	setPhase := func(name, phase, message string) {
		GinkgoHelper()
		live := get(ctx, group+"/v1", "Gadget", ns, name)
		Expect(unstructured.SetNestedField(live.Object, phase, "status", "phase")).To(Succeed())
		if message != "" {
			Expect(unstructured.SetNestedField(live.Object, message, "status", "message")).To(Succeed())
		}
		Expect(env.Client.Status().Update(ctx, live)).To(Succeed())
	}
	objects := func() []any {
		return []any{gadgetCRD(group), gadget(group, ns, "db"), configMap(ns, "after", nil, "apply-order", "1")}
	}

	It("without a check, kstatus calls a resource without conditions Current and the next wave starts at once", func() {
		h.applyUntilDone(ctx, objects()...)
		Expect(getConfigMap(ctx, ns, "after")).NotTo(BeNil())
	})

	It("holds the next wave until the check says Current, and reports a failure with the object's message", func() {
		h.owner.HealthChecks = []manifests.HealthCheck{{APIVersion: group + "/v1", Kind: "Gadget",
			Current: "self.status.phase == 'Running'", Failed: "self.status.phase == 'Failed'"}}
		res, err := h.apply(ctx, objects()...)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())
		Expect(res.Waiting).To(ConsistOf(ContainSubstring("waiting for health check: self.status.phase == 'Running'")))
		Expect(getConfigMap(ctx, ns, "after")).To(BeNil(), "the next wave started")

		setPhase("db", "Running", "")
		h.applyUntilDone(ctx, objects()...)
		Expect(getConfigMap(ctx, ns, "after")).NotTo(BeNil())

		setPhase("db", "Failed", "disk full")
		Eventually(func() error {
			_, err := h.apply(ctx, objects()...)
			return err
		}).Should(MatchError(group + "/Gadget " + ns + "/db failed: Failed: health check failed: self.status.phase == 'Failed': disk full"))
	})

	It("judges a delete hook by its check too: a hook that fails it holds its delete wave", func() {
		h.owner.HealthChecks = []manifests.HealthCheck{{APIVersion: group + "/v1", Kind: "Gadget",
			Current: "self.status.phase == 'Running'", Failed: "self.status.phase == 'Failed'"}}
		hook := gadget(group, ns, "cleanup", "delete-hook", "pre-delete", "delete-order", "-1")
		objects := []any{gadgetCRD(group), configMap(ns, "cm", nil), hook}
		h.applyUntilDone(ctx, objects...)
		deletePass := func() (engine.Result, error) {
			res, err := h.applier.Delete(ctx, h.owner, h.inventory, engine.DeleteOptions{Hooks: toObjects(objects), Save: h.save})
			h.inventory = res.Inventory
			return res, err
		}
		res, err := deletePass()
		Expect(err).NotTo(HaveOccurred())
		// Without the check, kstatus would call a Gadget without conditions Current at once.
		Expect(res.Done).To(BeFalse())
		Expect(res.Waiting).To(ConsistOf(ContainSubstring("waiting for health check: self.status.phase == 'Running'")))

		setPhase("cleanup", "Failed", "cannot reach the backup store")
		Eventually(func() error {
			_, err := deletePass()
			return err
		}).Should(MatchError(ContainSubstring("health check failed: self.status.phase == 'Failed': cannot reach the backup store")))
		Expect(getConfigMap(ctx, ns, "cm")).NotTo(BeNil(), "the wave after a failed delete hook was deleted")
	})

	It("refuses a check that does not compile before writing anything", func() {
		h.owner.HealthChecks = []manifests.HealthCheck{{APIVersion: group + "/v1", Kind: "Gadget", Current: "self.status.phase = 'Running'"}}
		h.counter.Reset()
		_, err := h.apply(ctx, objects()...)
		var userErr *manifests.UserError
		Expect(errors.As(err, &userErr)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(HavePrefix("health check 0 (" + group + "/v1 Gadget) current \"self.status.phase = 'Running'\": ERROR:")))
		Expect(h.counter.Writes()).To(BeZero(), h.counter.String())
	})
})
