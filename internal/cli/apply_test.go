package cli_test

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

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// inventoryOf decodes the inventory of a release Secret.
func inventoryOf(namespace, name string) []string {
	GinkgoHelper()
	secret := inventorySecret(namespace, name)
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
		ns := newNamespace()
		out := succeeds("apply", "demo", "testdata/web", "-n", ns, "--set", "extra=true")
		Expect(out).To(Equal("wave 0: 2/2 ready\nwave 1: 1/1 ready\nrelease " + ns + "/demo is ready: 3 objects in 2 waves (revision 1)\n"))
		Expect(configMap(ns, "demo-extra")).NotTo(BeNil())
		owner := manifests.OwnerID("wavekit.dev", "Release", ns, "demo")
		Expect(configMap(ns, "demo-app").Labels).To(HaveKeyWithValue("wavekit.dev/owner-id", owner))
		Expect(configMap(ns, "demo-app").Annotations).To(HaveKeyWithValue("wavekit.dev/owner", "Release "+ns+"/demo"))
		Expect(inventoryOf(ns, "demo")).To(ConsistOf(
			"ConfigMap "+ns+"/demo-config Ready", "ConfigMap "+ns+"/demo-extra Ready", "ConfigMap "+ns+"/demo-app Ready"))

		out = succeeds("apply", "demo", "testdata/web", "-n", ns)
		Expect(out).To(ContainSubstring("deleted ConfigMap " + ns + "/demo-extra\n"))
		Expect(out).To(HaveSuffix("release " + ns + "/demo is ready: 2 objects in 2 waves (revision 2)\n"))
		Expect(configMap(ns, "demo-extra")).To(BeNil())
		Expect(inventoryOf(ns, "demo")).To(ConsistOf("ConfigMap "+ns+"/demo-config Ready", "ConfigMap "+ns+"/demo-app Ready"))
	})

	It("refuses a release namespace that does not exist, and creates it with --create-namespace", func() {
		ns := fmt.Sprintf("cli-new-%d", GinkgoParallelProcess())
		r := wavekit("apply", "fresh", "testdata/web", "-n", ns)
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("release namespace " + ns + " does not exist"))
		Expect(env.Client.Get(context.Background(), client.ObjectKey{Name: ns}, &corev1.Namespace{})).NotTo(Succeed())

		r = wavekit("apply", "fresh", "testdata/web", "-n", ns, "--create-namespace")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stderr).To(ContainSubstring("created namespace " + ns + "\n"))
		Expect(configMap(ns, "fresh-config")).NotTo(BeNil())
		Expect(inventoryOf(ns, "fresh")).NotTo(ContainElement(ContainSubstring("Namespace")), "the release namespace is not part of the release")

		r = wavekit("apply", "fresh", "testdata/web", "-n", ns, "--create-namespace")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stderr).NotTo(ContainSubstring("created namespace"), "it exists now")
	})

	It("writes nothing when nothing changed", func() {
		ns := newNamespace()
		succeeds("apply", "same", "testdata/web", "-n", ns)
		before := inventorySecret(ns, "same").ResourceVersion
		out := succeeds("apply", "same", "testdata/web", "-n", ns)
		Expect(out).To(HaveSuffix("(revision 1)\n"))
		Expect(inventorySecret(ns, "same").ResourceVersion).To(Equal(before))
	})

	It("applies a chart and a kustomization", func() {
		ns := newNamespace()
		succeeds("apply", "ch", "testdata/chart", "-n", ns, "--set", "message=hello")
		Expect(configMap(ns, "ch-tiny").Data).To(HaveKeyWithValue("message", "hello"))
		succeeds("apply", "kz", "testdata/kustomize", "-n", ns)
		Expect(configMap(ns, "kz-kz").Data).To(HaveKeyWithValue("color", "blue"))
	})

	It("returns without --wait while a wave is not ready, and --wait waits for it", func() {
		ns := newNamespace()
		out := succeeds("apply", "web", "testdata/deployment", "-n", ns)
		Expect(out).To(ContainSubstring("release " + ns + "/web is applied up to wave 0 and waits for apps/Deployment " + ns + "/web"))
		Expect(configMap(ns, "web-after")).To(BeNil())

		done := make(chan result, 1)
		go func() {
			defer GinkgoRecover()
			done <- wavekit("apply", "web", "testdata/deployment", "-n", ns, "--wait", "--timeout", "2m")
		}()
		// The Deployment's pod waits for the scheduler until it is ungated.
		Consistently(done).WithTimeout(500 * time.Millisecond).ShouldNot(Receive())
		ungate(ns, "web")
		var r result
		Eventually(done).WithTimeout(150 * time.Second).Should(Receive(&r))
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("wave 1: 1/1 ready"))
		Expect(configMap(ns, "web-after")).NotTo(BeNil())
	})

	It("installs until the release has been ready once, however many applies that takes", func() {
		ns := newNamespace()
		for range 2 {
			out := succeeds("apply", "hooked", "testdata/upgrade-hook", "-n", ns)
			Expect(out).To(ContainSubstring("waits for apps/Deployment " + ns + "/hooked"))
		}
		ungate(ns, "hooked")
		succeeds("apply", "hooked", "testdata/upgrade-hook", "-n", ns, "--wait", "--timeout", "2m")
		Expect(configMap(ns, "hooked-installed")).NotTo(BeNil())
		Expect(configMap(ns, "hooked-upgraded")).To(BeNil(), "a post-upgrade hook does not run while the release installs")

		succeeds("apply", "hooked", "testdata/upgrade-hook", "-n", ns, "--set", "image=registry.example/app:2.0")
		Expect(configMap(ns, "hooked-upgraded")).To(BeNil(), "the post-upgrade hook waits for the upgraded Deployment")
		ungate(ns, "hooked") // the new ReplicaSet's pod; the old one runs until it is available
		succeeds("apply", "hooked", "testdata/upgrade-hook", "-n", ns, "--set", "image=registry.example/app:2.0", "--wait", "--timeout", "2m")
		Expect(configMap(ns, "hooked-upgraded").Data).To(HaveKeyWithValue("image", "registry.example/app:2.0"))
	})

	It("creates a missing namespace, tracks it and keeps it, or refuses under --namespace-policy do-not-create", func() {
		ns := newNamespace()
		target := ns + "-elsewhere"
		r := wavekit("apply", "far", "testdata/elsewhere", "-n", ns, "--set", "target="+target, "--namespace-policy", "do-not-create")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("ConfigMap " + target + "/far-config needs namespace " + target + ", which does not exist (namespace policy do-not-create)"))
		Expect(namespaceExists(target)).To(BeFalse())
		Expect(configMap(target, "far-config")).To(BeNil())

		succeeds("apply", "far", "testdata/elsewhere", "-n", ns, "--set", "target="+target)
		Expect(inventoryOf(ns, "far")).To(ConsistOf("Namespace "+target+" Ready", "ConfigMap "+target+"/far-config Ready"))
		succeeds("delete", "far", "-n", ns)
		Expect(configMap(target, "far-config")).To(BeNil())
		Expect(namespaceExists(target)).To(BeTrue(), "a namespace wavekit created is never deleted with the release")
	})

	It("records a first apply that the API server rejects as Failed, with its error", func() {
		ns := newNamespace()
		r := wavekit("apply", "bad", "testdata/rejected", "-n", ns)
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("Not_A_Valid_Name"))
		out := succeeds("status", "bad", "-n", ns)
		Expect(out).To(ContainSubstring("State:     Failed\n"))
		Expect(out).To(ContainSubstring("Not_A_Valid_Name"))
	})

	It("shows the API server's warnings, each once", func() {
		ns := newNamespace()
		r := wavekit("apply", "odd", "testdata/unknown-field", "-n", ns)
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stderr).To(ContainSubstring(`Warning: unknown field "colour"`))
		Expect(strings.Count(r.stderr, `unknown field "colour"`)).To(Equal(1))
	})

	It("fails --wait at the timeout, naming what it waits for", func() {
		ns := newNamespace() // the Deployment's pod stays gated
		r := wavekit("apply", "slow", "testdata/deployment", "-n", ns, "--wait", "--timeout", "1s")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(HavePrefix("error: release " + ns + "/slow: timed out after 1s in wave 0 waiting for apps/Deployment " + ns + "/slow: "))
	})
})

// namespaceExists tells whether a namespace exists and is not being deleted.
func namespaceExists(name string) bool {
	GinkgoHelper()
	ns := &corev1.Namespace{}
	err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, ns)
	if apierrors.IsNotFound(err) {
		return false
	}
	Expect(err).NotTo(HaveOccurred())
	return ns.DeletionTimestamp == nil
}

// ungate waits until a pod labelled app=name in namespace carries a
// scheduling gate, as the Deployments of testdata/deployment and
// testdata/upgrade-hook make them, and removes the gates of all such pods:
// the scheduler then places them, kwok runs them, and the Deployment
// controller reports the rollout.
func ungate(namespace, name string) {
	GinkgoHelper()
	Eventually(func() error {
		var pods corev1.PodList
		if err := env.Client.List(context.Background(), &pods, client.InNamespace(namespace), client.MatchingLabels{"app": name}); err != nil {
			return err
		}
		gated := 0
		for i := range pods.Items {
			pod := &pods.Items[i]
			if len(pod.Spec.SchedulingGates) == 0 {
				continue
			}
			gated++
			pod.Spec.SchedulingGates = nil
			if err := env.Client.Update(context.Background(), pod); err != nil {
				return err
			}
		}
		if gated == 0 {
			return fmt.Errorf("no pod of %s/%s waits at its scheduling gate", namespace, name)
		}
		return nil
	}).WithTimeout(time.Minute).Should(Succeed())
}
