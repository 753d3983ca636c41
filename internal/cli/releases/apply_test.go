package releases_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// inventoryOf decodes the inventory of a release Secret.
func inventoryOf(namespace, name string) []string {
	GinkgoHelper()
	secret := clitest.InventorySecret(namespace, name)
	Expect(secret).NotTo(BeNil())
	Expect(string(secret.Type)).To(Equal("wavekit.dev/inventory"))
	var items []manifests.InventoryItem
	Expect(json.Unmarshal(secret.Data["inventory"], &items)).To(Succeed())
	var keys []string
	for _, item := range items {
		keys = append(keys, item.String()+" "+string(item.Phase))
	}
	return keys
}

var _ = Describe("apply", func() {
	It("applies in waves, records the inventory and prunes on the next apply", func() {
		ns := clitest.NewNamespace()
		out := clitest.Succeeds("apply", "demo", "../testdata/web", "-n", ns, "--set", "extra=true")
		Expect(out).To(Equal("wave 0: 2/2 ready\nwave 1: 1/1 ready\nrelease " + ns + "/demo is ready: 3 objects in 2 waves (revision 1)\n"))
		Expect(clitest.ConfigMap(ns, "demo-extra")).NotTo(BeNil())
		owner := manifests.OwnerID("wavekit.dev", "Release", ns, "demo")
		Expect(clitest.ConfigMap(ns, "demo-app").Labels).To(HaveKeyWithValue("wavekit.dev/owner-id", owner))
		Expect(clitest.ConfigMap(ns, "demo-app").Annotations).To(HaveKeyWithValue("wavekit.dev/owner", "Release "+ns+"/demo"))
		Expect(inventoryOf(ns, "demo")).To(ConsistOf(
			"ConfigMap "+ns+"/demo-config Ready", "ConfigMap "+ns+"/demo-extra Ready", "ConfigMap "+ns+"/demo-app Ready"))

		out = clitest.Succeeds("apply", "demo", "../testdata/web", "-n", ns)
		Expect(out).To(ContainSubstring("deleted ConfigMap " + ns + "/demo-extra\n"))
		Expect(out).To(HaveSuffix("release " + ns + "/demo is ready: 2 objects in 2 waves (revision 2)\n"))
		Expect(clitest.ConfigMap(ns, "demo-extra")).To(BeNil())
		Expect(inventoryOf(ns, "demo")).To(ConsistOf("ConfigMap "+ns+"/demo-config Ready", "ConfigMap "+ns+"/demo-app Ready"))
	})

	It("refuses a release namespace that does not exist, and creates it with --create-namespace", func() {
		ns := fmt.Sprintf("cli-new-%d", GinkgoParallelProcess())
		r := clitest.Wavekit("apply", "fresh", "../testdata/web", "-n", ns)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("release namespace " + ns + " does not exist"))
		Expect(clitest.Env.Client.Get(context.Background(), client.ObjectKey{Name: ns}, &corev1.Namespace{})).NotTo(Succeed())

		r = clitest.Wavekit("apply", "fresh", "../testdata/web", "-n", ns, "--create-namespace")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stderr).To(ContainSubstring("created namespace " + ns + "\n"))
		Expect(clitest.ConfigMap(ns, "fresh-config")).NotTo(BeNil())
		Expect(inventoryOf(ns, "fresh")).NotTo(ContainElement(ContainSubstring("Namespace")), "the release namespace is not part of the release")

		r = clitest.Wavekit("apply", "fresh", "../testdata/web", "-n", ns, "--create-namespace")
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stderr).NotTo(ContainSubstring("created namespace"), "it exists now")
	})

	It("writes nothing when nothing changed", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "same", "../testdata/web", "-n", ns)
		before := clitest.InventorySecret(ns, "same").ResourceVersion
		out := clitest.Succeeds("apply", "same", "../testdata/web", "-n", ns)
		Expect(out).To(HaveSuffix("(revision 1)\n"))
		Expect(clitest.InventorySecret(ns, "same").ResourceVersion).To(Equal(before))
	})

	It("applies a chart and a kustomization", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "ch", "../testdata/chart", "-n", ns, "--set", "message=hello")
		Expect(clitest.ConfigMap(ns, "ch-tiny").Data).To(HaveKeyWithValue("message", "hello"))
		clitest.Succeeds("apply", "kz", "../testdata/kustomize", "-n", ns)
		Expect(clitest.ConfigMap(ns, "kz-kz").Data).To(HaveKeyWithValue("color", "blue"))
	})

	It("returns without --wait while a wave is not ready, and --wait waits for it", func() {
		ns := clitest.NewNamespace()
		out := clitest.Succeeds("apply", "web", "../testdata/deployment", "-n", ns)
		Expect(out).To(ContainSubstring("release " + ns + "/web is applied up to wave 0 and waits for apps/Deployment " + ns + "/web"))
		Expect(clitest.ConfigMap(ns, "web-after")).To(BeNil())

		done := make(chan clitest.Result, 1)
		go func() {
			defer GinkgoRecover()
			done <- clitest.Wavekit("apply", "web", "../testdata/deployment", "-n", ns, "--wait", "--timeout", "2m")
		}()
		// The Deployment's pod waits for the scheduler until it is ungated.
		Consistently(done).WithTimeout(500 * time.Millisecond).ShouldNot(Receive())
		clitest.Ungate(ns, "web")
		var r clitest.Result
		Eventually(done).WithTimeout(150 * time.Second).Should(Receive(&r))
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stdout).To(ContainSubstring("wave 1: 1/1 ready"))
		Expect(clitest.ConfigMap(ns, "web-after")).NotTo(BeNil())
	})

	It("installs until the release has been ready once, however many applies that takes", func() {
		ns := clitest.NewNamespace()
		for range 2 {
			out := clitest.Succeeds("apply", "hooked", "../testdata/upgrade-hook", "-n", ns)
			Expect(out).To(ContainSubstring("waits for apps/Deployment " + ns + "/hooked"))
		}
		clitest.Ungate(ns, "hooked")
		clitest.Succeeds("apply", "hooked", "../testdata/upgrade-hook", "-n", ns, "--wait", "--timeout", "2m")
		Expect(clitest.ConfigMap(ns, "hooked-installed")).NotTo(BeNil())
		Expect(clitest.ConfigMap(ns, "hooked-upgraded")).To(BeNil(), "a post-upgrade hook does not run while the release installs")
		clitest.Succeeds("apply", "hooked", "../testdata/upgrade-hook", "-n", ns, "--set", "image=registry.example/app:2.0")
		Expect(clitest.ConfigMap(ns, "hooked-upgraded")).To(BeNil(), "the post-upgrade hook waits for the upgraded Deployment")
		clitest.Ungate(ns, "hooked")
		clitest. // the new ReplicaSet's pod; the old one runs until it is available
				Succeeds("apply", "hooked", "../testdata/upgrade-hook", "-n", ns, "--set", "image=registry.example/app:2.0", "--wait", "--timeout", "2m")
		Expect(clitest.ConfigMap(ns, "hooked-upgraded").Data).To(HaveKeyWithValue("image", "registry.example/app:2.0"))
	})

	It("creates a missing namespace, tracks it and keeps it, or refuses under --namespace-policy do-not-create", func() {
		ns := clitest.NewNamespace()
		target := ns + "-elsewhere"
		r := clitest.Wavekit("apply", "far", "../testdata/elsewhere", "-n", ns, "--set", "target="+target, "--namespace-policy", "do-not-create")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("ConfigMap " + target + "/far-config needs namespace " + target + ", which does not exist (namespace policy do-not-create)"))
		Expect(namespaceExists(target)).To(BeFalse())
		Expect(clitest.ConfigMap(target, "far-config")).To(BeNil())
		clitest.Succeeds("apply", "far", "../testdata/elsewhere", "-n", ns, "--set", "target="+target)
		Expect(inventoryOf(ns, "far")).To(ConsistOf("Namespace "+target+" Ready", "ConfigMap "+target+"/far-config Ready"))
		clitest.Succeeds("delete", "far", "-n", ns)
		Expect(clitest.ConfigMap(target, "far-config")).To(BeNil())
		Expect(namespaceExists(target)).To(BeTrue(), "a namespace wavekit created is never deleted with the release")
	})

	It("records a first apply that the API server rejects as Failed, with its error", func() {
		ns := clitest.NewNamespace()
		r := clitest.Wavekit("apply", "bad", "../testdata/rejected", "-n", ns)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("Not_A_Valid_Name"))
		out := clitest.Succeeds("status", "bad", "-n", ns)
		Expect(out).To(ContainSubstring("State:     Failed\n"))
		Expect(out).To(ContainSubstring("Not_A_Valid_Name"))
	})

	It("shows the API server's warnings, each once", func() {
		ns := clitest.NewNamespace()
		r := clitest.Wavekit("apply", "odd", "../testdata/unknown-field", "-n", ns)
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stderr).To(ContainSubstring(`Warning: unknown field "colour"`))
		Expect(strings.Count(r.Stderr, `unknown field "colour"`)).To(Equal(1))
	})

	It("fails --wait at the timeout, naming what it waits for", func() {
		ns := clitest.NewNamespace() // the Deployment's pod stays gated
		r := clitest.Wavekit("apply", "slow", "../testdata/deployment", "-n", ns, "--wait", "--timeout", "1s")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(HavePrefix("error: release " + ns + "/slow: timed out after 1s in wave 0 waiting for apps/Deployment " + ns + "/slow: "))
	})
})

// namespaceExists tells whether a namespace exists and is not being deleted.
func namespaceExists(name string) bool {
	GinkgoHelper()
	ns := &corev1.Namespace{}
	err := clitest.Env.Client.Get(context.Background(), client.ObjectKey{Name: name}, ns)
	if apierrors.IsNotFound(err) {
		return false
	}
	Expect(err).NotTo(HaveOccurred())
	return ns.DeletionTimestamp == nil
}
