package releases_test

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/invariants"
)

// A release's record keeps the objects of its revisions for rollback and
// test; a Secret among them keeps its values there only sealed, with the
// key of the release's own Secret (docs/security-secrets.md).
var _ = Describe("the release's record", func() {
	ctx := context.Background()
	secretValue := func(ns, name string) string {
		GinkgoHelper()
		s := &corev1.Secret{}
		Expect(clitest.Env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, s)).To(Succeed())
		return string(s.Data["password"])
	}
	keySecret := func(ns, name string) *corev1.Secret {
		s := &corev1.Secret{}
		if err := clitest.Env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "wavekit-keys." + name}, s); err != nil {
			Expect(client.IgnoreNotFound(err)).To(Succeed())
			return nil
		}
		return s
	}

	It("holds no value of the Secrets it applied, and still rolls back to them", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "vault", "../testdata/secret", "-n", ns, "--set", "password=first-marker-value")
		clitest.Succeeds("apply", "vault", "../testdata/secret", "-n", ns, "--set", "password=second-marker-value")
		record := clitest.InventorySecret(ns, "vault")
		for _, marker := range []string{"first-marker-value", "second-marker-value"} {
			Expect(holdsAnywhere(record, marker)).To(BeFalse(), "the release's record holds %s", marker)
		}
		Expect(record.Data).To(HaveKey("sealed"))
		Expect(keySecret(ns, "vault")).NotTo(BeNil(), "the first apply makes the release's key")

		clitest.Succeeds("rollback", "vault", "-n", ns)
		Expect(secretValue(ns, "vault-credentials")).To(Equal("first-marker-value"), "the rollback restores the sealed revision's value")
		Expect(holdsAnywhere(clitest.InventorySecret(ns, "vault"), "first-marker-value")).To(BeFalse())

		By("losing the key, the history cannot be read, and the CLI says so and what to do")
		Expect(clitest.Env.Client.Delete(ctx, keySecret(ns, "vault"))).To(Succeed())
		r := clitest.Wavekit("rollback", "vault", "-n", ns)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("are sealed with a key of Secret " + ns + "/wavekit-keys.vault, and that Secret is gone; restore that Secret"))

		By("deleting the release deletes its key")
		ns = clitest.NewNamespace()
		clitest.Succeeds("apply", "vault", "../testdata/secret", "-n", ns, "--set", "password=third-marker-value")
		clitest.Succeeds("delete", "vault", "-n", ns)
		Expect(keySecret(ns, "vault")).To(BeNil())
	})

	It("reads a record written before sealing, and seals it at the next apply", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "vault", "../testdata/secret", "-n", ns, "--set", "password=old-marker-value")
		record := clitest.InventorySecret(ns, "vault")
		Expect(clitest.Env.Client.Delete(ctx, keySecret(ns, "vault"))).To(Succeed())
		plaintextRecord(record, "old-marker-value")
		Expect(clitest.Env.Client.Update(ctx, record)).To(Succeed())
		Expect(holdsAnywhere(clitest.InventorySecret(ns, "vault"), "old-marker-value")).To(BeTrue(), "the test writes the old form")

		Expect(clitest.Succeeds("history", "vault", "-n", ns)).To(ContainSubstring("Ready"))
		clitest.Succeeds("apply", "vault", "../testdata/secret", "-n", ns, "--set", "password=new-marker-value")
		for _, marker := range []string{"old-marker-value", "new-marker-value"} {
			Expect(holdsAnywhere(clitest.InventorySecret(ns, "vault"), marker)).To(BeFalse(), "the record still holds %s", marker)
		}
		clitest.Succeeds("rollback", "vault", "-n", ns)
		Expect(secretValue(ns, "vault-credentials")).To(Equal("old-marker-value"))
	})
})

// plaintextRecord rewrites record as the CLI wrote it before sealing: the
// history of one revision whose Secret holds value, in plaintext.
func plaintextRecord(record *corev1.Secret, value string) {
	GinkgoHelper()
	history := []map[string]any{{
		"revision": 1, "state": "Ready", "updated": metav1.Now(), "digest": "sha256:old",
		"objects": []map[string]any{{"apiVersion": "v1", "kind": "Secret",
			"metadata":   map[string]any{"name": "vault-credentials", "namespace": record.Namespace},
			"stringData": map[string]any{"password": value}}},
	}}
	encoded, err := json.Marshal(history)
	Expect(err).NotTo(HaveOccurred())
	delete(record.Data, "sealed")
	delete(record.Annotations, "wavekit.dev/release-key")
	record.Data["history"] = encoded
}

// holdsAnywhere tells whether a Secret holds value in its data or
// annotations, in any form (invariants.Holds).
func holdsAnywhere(s *corev1.Secret, value string) bool {
	for _, a := range s.Annotations {
		if invariants.Holds([]byte(a), value) {
			return true
		}
	}
	for _, data := range s.Data {
		if invariants.Holds(data, value) {
			return true
		}
	}
	return false
}
