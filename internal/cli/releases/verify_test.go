package releases_test

import (
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
)

var _ = Describe("apply --verify", func() {
	writeFile := func(name string, data []byte) string {
		file := filepath.Join(GinkgoT().TempDir(), name)
		Expect(os.WriteFile(file, data, 0o600)).To(Succeed())
		return file
	}

	It("applies an OCI chart whose cosign signature --key verifies, and refuses one it does not, applying nothing", func() {
		ctx := context.Background()
		registry, err := localregistry.New("", "")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(registry.Close)
		signer, err := localregistry.NewSigner()
		Expect(err).NotTo(HaveOccurred())
		other, err := localregistry.NewSigner()
		Expect(err).NotTo(HaveOccurred())
		Expect(registry.Push("charts", localrepo.Hello("1.0.0"))).To(Succeed())
		Expect(registry.SignBundle(ctx, "charts", "hello", "1.0.0", signer)).To(Succeed())
		ref := registry.Repository("charts") + "/hello"
		ns := clitest.NewNamespace()

		r := clitest.Wavekit("apply", "refused", ref, "-n", ns, "--insecure", "--verify", "--key", writeFile("other.pub", other.PublicKeyPEM()))
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("no cosign signature verified with key other.pub"))
		Expect(clitest.ConfigMap(ns, "refused")).To(BeNil())
		Expect(clitest.InventorySecret(ns, "refused")).To(BeNil(), "nothing is written")

		r = clitest.Wavekit("apply", "signed", ref, "-n", ns, "--insecure", "--verify", "--key", writeFile("cosign.pub", signer.PublicKeyPEM()))
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stderr).To(ContainSubstring("verified: cosign signature (Sigstore bundle"))
		Expect(clitest.ConfigMap(ns, "signed").Data).To(HaveKeyWithValue("version", "1.0.0"))
	})

	It("applies a chart of --repo whose .prov --keyring verifies, and refuses another keyring", func() {
		repo, err := localrepo.NewRepository()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(repo.Close)
		key, err := localrepo.NewPGPKey("cli-signer")
		Expect(err).NotTo(HaveOccurred())
		stranger, err := localrepo.NewPGPKey("stranger")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.AddSigned(key, localrepo.Hello("1.0.0"))).To(Succeed())
		ns := clitest.NewNamespace()

		r := clitest.Wavekit("apply", "refused", "hello", "--repo", repo.URL, "-n", ns, "--verify", "--keyring", writeFile("stranger.gpg", stranger.Keyring))
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("provenance file hello-1.0.0.tgz.prov, with the keyring stranger.gpg"))
		Expect(clitest.InventorySecret(ns, "refused")).To(BeNil(), "nothing is written")

		r = clitest.Wavekit("apply", "signed", "hello", "--repo", repo.URL, "-n", ns, "--verify", "--keyring", writeFile("pubring.gpg", key.Keyring))
		Expect(r.Code).To(Equal(0), r.Stderr)
		Expect(r.Stderr).To(ContainSubstring("verified: Helm provenance of hello-1.0.0.tgz"))
		Expect(clitest.ConfigMap(ns, "signed").Data).To(HaveKeyWithValue("version", "1.0.0"))
	})

	It("says what --verify needs", func() {
		r := clitest.Wavekit("apply", "x", "oci://127.0.0.1:1/charts/hello", "--verify")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("--verify of an oci:// chart needs --key FILE"))
		r = clitest.Wavekit("apply", "x", "../testdata/web", "--verify", "--key", "cosign.pub")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("--verify verified nothing: SOURCE is not a chart of --repo or oci://"))
		r = clitest.Wavekit("apply", "x", "../testdata/web", "--key", "cosign.pub")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("--key and --keyring need --verify"))
	})
})
