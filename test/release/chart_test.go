package release_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/wavekit-dev/wavekit/internal/release"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/verify"
)

const chartVersion = "1.2.3-test.1"

var _ = Describe("signed charts", Ordered, func() {
	var (
		dist, keys, archive string
		keyEnv              = []string{"COSIGN_PASSWORD=" + password}
	)

	// The chart as `make chart-package` writes it: helm package, then
	// stamped with the commit's time.
	BeforeAll(func() {
		dist, keys = GinkgoT().TempDir(), GinkgoT().TempDir()
		Expect(run(nil, "helm", "package", "config/chart", "--version", chartVersion, "--app-version", version, "--destination", dist)).Error().NotTo(HaveOccurred())
		archive = filepath.Join(dist, "component-operator-"+chartVersion+".tgz")
		Expect(run(nil, "release", "chart", "-created", "1764000000", archive)).Error().NotTo(HaveOccurred())
		Expect(run(keyEnv, "release", "keygen", "-out", keys)).Error().NotTo(HaveOccurred())
	})

	It("has a provenance file that helm verify accepts, and refuses a changed chart or another keyring", func() {
		secring, pubring := pgpKeyrings("wavekit releases")
		_, strangerPub := pgpKeyrings("stranger")
		Expect(run(nil, "release", "prov", "-keyring", secring, "-key", "wavekit releases", archive)).Error().NotTo(HaveOccurred())
		out, err := run(nil, "helm", "verify", "--keyring", pubring, archive)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("Signed by: wavekit releases"))

		By("another keyring")
		Expect(run(nil, "helm", "verify", "--keyring", strangerPub, archive)).Error().To(MatchError(ContainSubstring("openpgp: signature made by unknown entity")))

		By("a changed chart with the same provenance file")
		changed := filepath.Join(GinkgoT().TempDir(), filepath.Base(archive))
		data, err := os.ReadFile(archive)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(changed, append(data, 0), 0o644)).To(Succeed())
		prov, err := os.ReadFile(archive + ".prov")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(changed+".prov", prov, 0o644)).To(Succeed())
		Expect(run(nil, "helm", "verify", "--keyring", pubring, changed)).Error().To(MatchError(ContainSubstring("sha256 sum does not match")))
	})

	It("is signed in the registry after helm push, and cosign and wavekit's own verifier accept it with the public key", func(ctx SpecContext) {
		registry, err := localregistry.New("", "")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(registry.Close)
		Expect(run(nil, "helm", "push", archive, "oci://"+registry.Host+"/charts", "--plain-http")).Error().NotTo(HaveOccurred())
		ref := registry.Host + "/charts/component-operator:" + chartVersion
		out, err := run(keyEnv, "release", "sign-artifact", "-key", filepath.Join(keys, "cosign.key"), "-created", "1764000000", "oci://"+ref)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("attached"))

		out, err = run(nil, "cosign", "verify", "--key", filepath.Join(keys, "cosign.pub"), "--insecure-ignore-tlog", "--allow-http-registry", ref)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("The signatures were verified against the specified public key"))

		By("wavekit's verifier, as a Component's spec.chart.verify runs it")
		digest, err := registry.ManifestDigest(ctx, "charts", "component-operator", chartVersion)
		Expect(err).NotTo(HaveOccurred())
		public, err := os.ReadFile(filepath.Join(keys, "cosign.pub"))
		Expect(err).NotTo(HaveOccurred())
		Expect(verifyChart(ctx, registry, digest, public)).To(And(HavePrefix("cosign signature (Sigstore bundle"),
			ContainSubstring("of "+digest+" verified with key cosign.pub")))

		By("another key")
		_, other, err := release.GenerateKey(nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(verifyChart(ctx, registry, digest, other)).Error().To(MatchError(ContainSubstring("no cosign signature verified with key cosign.pub")))
	})
})

// verifyChart runs wavekit's cosign verifier on the chart manifest digest
// of the registry's charts/component-operator with the public key.
func verifyChart(ctx context.Context, registry *localregistry.Registry, digest string, public []byte) (string, error) {
	GinkgoHelper()
	verifier, err := verify.NewCosign(map[string][]byte{"cosign.pub": public}, nil)
	Expect(err).NotTo(HaveOccurred())
	repo, err := remote.NewRepository(registry.Host + "/charts/component-operator")
	Expect(err).NotTo(HaveOccurred())
	repo.PlainHTTP = true
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return verifier.Verify(ctx, fetch.Subject{Source: strings.TrimSuffix(repo.Reference.String(), "/"), Digest: digest, Registry: repo})
}

// pgpKeyrings writes an OpenPGP key of name as a secret keyring and a
// public keyring (what gpg --export-secret-keys and --export write) and
// returns their paths.
func pgpKeyrings(name string) (secret, public string) {
	GinkgoHelper()
	entity, err := openpgp.NewEntity(name, "", strings.ReplaceAll(name, " ", "-")+"@example.com", nil)
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	var sec, pub bytes.Buffer
	Expect(entity.SerializePrivate(&sec, nil)).To(Succeed())
	Expect(entity.Serialize(&pub)).To(Succeed())
	secret, public = filepath.Join(dir, "secring.gpg"), filepath.Join(dir, "pubring.gpg")
	Expect(os.WriteFile(secret, sec.Bytes(), 0o600)).To(Succeed())
	Expect(os.WriteFile(public, pub.Bytes(), 0o644)).To(Succeed())
	return secret, public
}
