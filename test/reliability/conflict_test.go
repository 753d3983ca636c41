package reliability_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
)

// Another client keeps changing a field the operator manages. The operator
// puts it back after every edit, from the edit's event, and spends a bounded
// number of writes on it: no hot loop, no fight.
var _ = Describe("conflicting writers", func() {
	const edits = 10
	ctx := context.Background()

	It("restores a managed field after each of many edits with a bounded number of writes", func() {
		newNamespace(ctx, "conflict")
		counter := startOperator(ctx, map[string]string{"conflict": "configmap"})
		c := newComponent("conflict", "editor", "conflict", nil)
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		settled(counter)
		counter.Reset()

		for i := range edits {
			editGreeting(ctx, fmt.Sprintf("edited %d", i))
			eventually(func() string { return getConfigMap(ctx, "conflict", "editor-config").Data["greeting"] }).
				Should(Equal("hello"), "edit %d is not undone", i)
		}
		settled(counter)

		GinkgoWriter.Printf("requests for %d edits: %s\n", edits, counter)
		Expect(counter.Count("apply", "configmaps")).To(Equal(edits), "one restoring write (a server-side apply) per edit")
		// Besides the restoring writes: a few status writes and Kubernetes
		// Events when the outcome changes (2 and 5 measured), not per edit.
		// Edits this fast (more than 5 within a minute) also meet the
		// write-loop guard: the next restore waits out its pause, with one
		// status write and an Event each way (9 writes besides the restores measured).
		Expect(counter.Writes()-edits).To(BeNumerically("<=", 10), "writes in all: %s", counter)
		Expect(readyCondition(ctx, c)).To(HavePrefix("True/Ready"))
	})
})

// editGreeting changes the managed field as another client would.
func editGreeting(ctx context.Context, value string) {
	GinkgoHelper()
	eventually(func() error {
		cm := getConfigMap(ctx, "conflict", "editor-config")
		patch := client.MergeFrom(cm.DeepCopy())
		cm.Data["greeting"] = value
		return env.Client.Patch(ctx, cm, patch)
	}).Should(Succeed())
}

// settled waits until the operator has sent no write for a while, so that
// counts are taken between bursts (bounded: it fails after a minute).
func settled(counter *apicount.Counter) {
	GinkgoHelper()
	last := -1
	Eventually(func() bool {
		n := counter.Writes()
		quiet := n == last
		last = n
		return quiet
	}).WithTimeout(time.Minute).WithPolling(time.Second).Should(BeTrue())
}
