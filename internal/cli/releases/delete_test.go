package releases_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
)

func gadget(namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("cli.test.wavekit.dev/v1")
	u.SetKind("Gadget")
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

func crdExists() bool {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	err := clitest.Env.Client.Get(context.Background(), client.ObjectKey{Name: "gadgets.cli.test.wavekit.dev"}, crd)
	Expect(client.IgnoreNotFound(err)).To(Succeed())
	return err == nil
}

var _ = Describe("delete", func() {
	It("deletes the objects, then the inventory Secret", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "demo", "../testdata/web", "-n", ns)
		out := clitest.Succeeds("delete", "demo", "-n", ns, "--wait")
		Expect(out).To(ContainSubstring("deleted ConfigMap " + ns + "/demo-app\n"))
		Expect(out).To(HaveSuffix("release " + ns + "/demo deleted\n"))
		Expect(clitest.ConfigMap(ns, "demo-config")).To(BeNil())
		Expect(clitest.ConfigMap(ns, "demo-app")).To(BeNil())
		Expect(clitest.InventorySecret(ns, "demo")).To(BeNil())
	})

	It("runs the delete hooks that the last apply rendered, as helm uninstall does", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "hooked", "../testdata/delete-hooks", "-n", ns, "--set", "note=second")
		Expect(clitest.ConfigMap(ns, "hooked-before-delete")).To(BeNil(), "a delete hook is not applied while the release lives")
		out := clitest.Succeeds("delete", "hooked", "-n", ns, "--wait")
		Expect(out).To(Equal("orphaned ConfigMap "+ns+"/hooked-before-delete\n"+
			"deleted ConfigMap "+ns+"/hooked-app\n"+
			"deleted ConfigMap "+ns+"/hooked-after-delete\n"+
			"release "+ns+"/hooked deleted\n"), "the pre-delete hook first, the post-delete hook last")
		Expect(clitest.ConfigMap(ns, "hooked-app")).To(BeNil())
		kept := clitest.ConfigMap(ns, "hooked-before-delete")
		Expect(kept).NotTo(BeNil(), "the pre-delete hook ran and, without hook-succeeded, stays")
		Expect(kept.Data).To(HaveKeyWithValue("note", "second"), "with the values of the last apply")
		Expect(kept.Labels).NotTo(HaveKey("wavekit.dev/owner-id"))
		Expect(clitest.ConfigMap(ns, "hooked-after-delete")).To(BeNil(), "the post-delete hook ran and went")
		Expect(clitest.InventorySecret(ns, "hooked")).To(BeNil())
	})

	It("reports as deleted only what it deleted", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "demo", "../testdata/web", "-n", ns)
		Expect(clitest.Env.Client.Delete(context.Background(), clitest.ConfigMap(ns, "demo-config"))).To(Succeed())
		out := clitest.Succeeds("delete", "demo", "-n", ns, "--wait")
		Expect(out).To(ContainSubstring("deleted ConfigMap " + ns + "/demo-app\n"))
		Expect(out).To(ContainSubstring("left ConfigMap " + ns + "/demo-config: nothing to delete (gone already, or held by another owner)\n"))
		Expect(out).NotTo(ContainSubstring("deleted ConfigMap " + ns + "/demo-config"))
	})

	It("refuses while foreign instances of the release's CRD exist, and says what blocks", func() {
		ns := clitest.NewNamespace()
		clitest.Succeeds("apply", "gadgets", "../testdata/gadgets", "-n", ns, "--wait", "--timeout", "1m")
		Expect(clitest.Env.Client.Create(context.Background(), gadget(ns, "foreign"))).To(Succeed())
		secret := clitest.InventorySecret(ns, "gadgets")

		r := clitest.Wavekit("delete", "gadgets", "-n", ns, "--wait")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: cannot delete release " + ns + "/gadgets: 1 foreign instance of Gadget.cli.test.wavekit.dev exist\n"))
		Expect(crdExists()).To(BeTrue())
		Expect(clitest.Env.Client.Get(context.Background(), client.ObjectKeyFromObject(gadget(ns, "gadgets-own")), gadget(ns, "x"))).To(Succeed())
		Expect(clitest.InventorySecret(ns, "gadgets").ResourceVersion).To(Equal(secret.ResourceVersion))

		Expect(clitest.Env.Client.Delete(context.Background(), gadget(ns, "foreign"))).To(Succeed())
		out := clitest.Succeeds("delete", "gadgets", "-n", ns, "--wait", "--timeout", "1m")
		Expect(out).To(ContainSubstring("deleted apiextensions.k8s.io/CustomResourceDefinition gadgets.cli.test.wavekit.dev\n"))
		Expect(crdExists()).To(BeFalse())
		Expect(clitest.InventorySecret(ns, "gadgets")).To(BeNil())
	})

	It("says when the release does not exist", func() {
		r := clitest.Wavekit("delete", "nope", "-n", "default")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(Equal("error: release default/nope not found: no secret wavekit.nope\n" +
			"  wavekit list -A shows the releases; --ignore-not-found exits 0 for a release that is gone\n"))
	})

	It("exits 0 with --ignore-not-found for a release that does not exist, and says so", func() {
		r := clitest.Wavekit("delete", "nope", "-n", "default", "--ignore-not-found")
		Expect(r.Code).To(Equal(0))
		Expect(r.Stderr).To(Equal("release default/nope not found: nothing to delete\n"))
	})
})
