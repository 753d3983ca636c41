package release_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/imagebuild"
	"github.com/wavekit-dev/wavekit/internal/release"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
)

const (
	version   = "v1.2.3-test.1"
	imageName = "ghcr.io/wavekit-dev/component-operator:" + version
	password  = "release key password"
)

var _ = Describe("signed images", Ordered, func() {
	var (
		dist, keys string
		registry   *localregistry.Registry
		pushed     string // repository/name@digest of the pushed image
		keyEnv     = []string{"COSIGN_PASSWORD=" + password}
	)

	// One dist as `make dist SIGNING_KEY=…` makes it, of a stand-in
	// image (the operator takes minutes a platform to compile): the
	// image's archive and its SBOMs, the provenance, SHA256SUMS, then
	// `hack/release sign`; then `hack/image push -referrers`.
	BeforeAll(func(ctx SpecContext) {
		dist, keys = GinkgoT().TempDir(), GinkgoT().TempDir()
		buildImage(ctx, dist)
		Expect(run(nil, "release", "provenance", "-dist", dist, "-version", version, "-revision", "0123456789abcdef0123456789abcdef01234567",
			"-repository", "https://github.com/wavekit-dev/wavekit", "-builder", "https://wavekit.dev/builders/test")).Error().NotTo(HaveOccurred())
		writeSHA256SUMS(dist)
		Expect(run(keyEnv, "release", "keygen", "-out", keys)).Error().NotTo(HaveOccurred())
		Expect(run(keyEnv, "release", "sign", "-key", filepath.Join(keys, "cosign.key"), "-dist", dist, "-created", "1764000000")).Error().NotTo(HaveOccurred())

		var err error
		registry, err = localregistry.New("", "")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(registry.Close)
		target := registry.Host + "/wavekit-dev/component-operator:" + version
		out, err := run(nil, "image", "push", "-archive", filepath.Join(dist, "component-operator-"+version+".oci.tar"), "-image", target,
			"-referrers", filepath.Join(dist, "component-operator-"+version+".referrers.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("attached"))
		ref, err := name.ParseReference(target)
		Expect(err).NotTo(HaveOccurred())
		digest, err := remote.Head(ref)
		Expect(err).NotTo(HaveOccurred())
		pushed = registry.Host + "/wavekit-dev/component-operator@" + digest.Digest.String()
	}, NodeTimeout(10*time.Minute))

	cosign := func(args ...string) (string, error) {
		return run(nil, "cosign", append(args, "--key", filepath.Join(keys, "cosign.pub"), "--insecure-ignore-tlog", "--allow-http-registry")...)
	}

	It("builds to the same bytes twice: archives, digests, SBOMs", func(ctx SpecContext) {
		again := GinkgoT().TempDir()
		buildImage(ctx, again)
		entries, err := os.ReadDir(again)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(5), "the OCI archive, two Docker archives, two SBOMs")
		for _, e := range entries {
			first, err := os.ReadFile(filepath.Join(dist, e.Name()))
			Expect(err).NotTo(HaveOccurred())
			second, err := os.ReadFile(filepath.Join(again, e.Name()))
			Expect(err).NotTo(HaveOccurred())
			Expect(sha256.Sum256(second)).To(Equal(sha256.Sum256(first)), e.Name())
		}
	})

	It("verifies with cosign verify and the public key alone", func() {
		out, err := cosign("verify", pushed)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("The signatures were verified against the specified public key"))
	})

	It("carries the signature in cosign's earlier tag form too, for admission controllers that read only that", func(ctx SpecContext) {
		index, closeArchive, err := imagebuild.ReadOCIArchive(filepath.Join(dist, "component-operator-"+version+".oci.tar"))
		Expect(err).NotTo(HaveOccurred())
		defer closeArchive()
		digest, err := imagebuild.Push(ctx, index, registry.Host+"/wavekit-dev/tag-only:"+version)
		Expect(err).NotTo(HaveOccurred())
		refs, err := release.ReadReferrers(filepath.Join(dist, "component-operator-"+version+".referrers.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(refs.Tag).NotTo(BeNil())
		refs.Bundles = nil // the tag form alone
		_, err = imagebuild.AttachReferrers(ctx, registry.Host+"/wavekit-dev/tag-only", refs)
		Expect(err).NotTo(HaveOccurred())
		ref, err := name.ParseReference(registry.Host + "/wavekit-dev/tag-only:" + strings.Replace(digest.String(), ":", "-", 1) + ".sig")
		Expect(err).NotTo(HaveOccurred())
		Expect(remote.Head(ref)).Error().NotTo(HaveOccurred(), "the tag sha256-<hex>.sig")
		out, err := cosign("verify", registry.Host+"/wavekit-dev/tag-only@"+digest.String())
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("The signatures were verified against the specified public key"))
	})

	It("carries an SBOM attestation of each platform and the provenance, verified by cosign verify-attestation", func() {
		out, err := cosign("verify-attestation", "--type", "cyclonedx", pushed)
		Expect(err).NotTo(HaveOccurred())
		var sboms []map[string]any
		for _, platform := range []string{"linux-amd64", "linux-arm64"} {
			var sbom map[string]any
			data, err := os.ReadFile(filepath.Join(dist, "component-operator-"+version+"-"+platform+".cdx.json"))
			Expect(err).NotTo(HaveOccurred())
			Expect(json.Unmarshal(data, &sbom)).To(Succeed())
			sboms = append(sboms, sbom)
		}
		Expect(predicates(out, release.SBOMPredicateType)).To(ConsistOf(sboms[0], sboms[1]))
		out, err = cosign("verify-attestation", "--type", "slsaprovenance1", pushed)
		Expect(err).NotTo(HaveOccurred())
		provenance := predicates(out, release.ProvenancePredicateType)
		Expect(provenance).To(HaveLen(1))
		Expect(provenance[0]).To(HaveKeyWithValue("buildDefinition", HaveKeyWithValue("buildType", release.BuildType)))
	})

	It("verifies SHA256SUMS and the provenance of each file with cosign verify-blob", func() {
		Expect(run(nil, "cosign", "verify-blob", "--key", filepath.Join(keys, "cosign.pub"), "--insecure-ignore-tlog",
			"--bundle", filepath.Join(dist, "SHA256SUMS.sigstore.json"), filepath.Join(dist, "SHA256SUMS"))).Error().NotTo(HaveOccurred())
		Expect(run(nil, "cosign", "verify-blob-attestation", "--key", filepath.Join(keys, "cosign.pub"), "--insecure-ignore-tlog",
			"--type", "slsaprovenance1", "--bundle", filepath.Join(dist, "provenance.sigstore.json"),
			filepath.Join(dist, "component-operator-"+version+".oci.tar"))).Error().NotTo(HaveOccurred())

		By("a changed SHA256SUMS fails")
		sums := filepath.Join(GinkgoT().TempDir(), "SHA256SUMS")
		data, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(sums, append(data, []byte(strings.Repeat("0", 64)+"  evil\n")...), 0o644)).To(Succeed())
		Expect(run(nil, "cosign", "verify-blob", "--key", filepath.Join(keys, "cosign.pub"), "--insecure-ignore-tlog",
			"--bundle", filepath.Join(dist, "SHA256SUMS.sigstore.json"), sums)).Error().To(HaveOccurred())
	})

	It("fails when a layer of the image is changed, its signature copied over", func(ctx SpecContext) {
		tampered := pushTampered(ctx, registry.Host+"/wavekit-dev/component-operator:tampered", dist)
		refs, err := release.ReadReferrers(filepath.Join(dist, "component-operator-"+version+".referrers.json"))
		Expect(err).NotTo(HaveOccurred())
		refs.Subject = tampered
		_, err = imagebuild.AttachReferrers(ctx, registry.Host+"/wavekit-dev/component-operator", refs)
		Expect(err).NotTo(HaveOccurred())
		out, err := cosign("verify", registry.Host+"/wavekit-dev/component-operator@"+tampered.Digest)
		Expect(err).To(MatchError(ContainSubstring("provided artifact digest does not match any digest in statement")))
		Expect(out).NotTo(ContainSubstring("were verified"))
	})

	It("fails when the signature is changed", func(ctx SpecContext) {
		tampered := pushTampered(ctx, registry.Host+"/wavekit-dev/other:"+version, dist)
		refs, err := release.ReadReferrers(filepath.Join(dist, "component-operator-"+version+".referrers.json"))
		Expect(err).NotTo(HaveOccurred())
		refs.Subject = tampered
		statement, err := release.Statement([]release.Subject{{Name: "other", SHA256: strings.TrimPrefix(tampered.Digest, "sha256:")}}, release.SignaturePredicateType, []byte("{}"))
		Expect(err).NotTo(HaveOccurred())
		// The original bundle's signature over a statement of the tampered image.
		refs.Bundles = []release.Attached{{PredicateType: release.SignaturePredicateType, Bundle: swapPayload(refs.Bundles[0].Bundle, statement)}}
		_, err = imagebuild.AttachReferrers(ctx, registry.Host+"/wavekit-dev/other", refs)
		Expect(err).NotTo(HaveOccurred())
		_, err = cosign("verify", registry.Host+"/wavekit-dev/other@"+tampered.Digest)
		Expect(err).To(MatchError(ContainSubstring("could not verify envelope")))
	})
})

// buildImage builds the stand-in image into dir as `make image` builds the
// operator's: both platforms, the OCI and Docker archives, an SBOM each.
func buildImage(ctx context.Context, dir string) {
	GinkgoHelper()
	_, err := imagebuild.Make(ctx, imagebuild.Options{
		Package: "./internal/imagebuild/testdata/standin", ModuleDir: root, Reference: imageName, OutDir: dir,
		Metadata: imagebuild.Metadata{Version: version, Revision: "0123456789abcdef0123456789abcdef01234567", Created: time.Unix(1764000000, 0)},
	})
	Expect(err).NotTo(HaveOccurred())
}

// writeSHA256SUMS writes SHA256SUMS of dir as `sha256sum` does.
func writeSHA256SUMS(dir string) {
	GinkgoHelper()
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	var lines []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		sum := sha256.Sum256(data)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+e.Name())
	}
	sort.Strings(lines)
	Expect(os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)).To(Succeed())
}

// predicates are the predicates of predicateType among the statements
// cosign verify-attestation printed (one DSSE envelope a line).
func predicates(out, predicateType string) []map[string]any {
	GinkgoHelper()
	var found []map[string]any
	for _, line := range strings.Split(out, "\n") {
		var envelope struct {
			Payload []byte `json:"payload"`
		}
		if json.Unmarshal([]byte(line), &envelope) != nil || envelope.Payload == nil {
			continue
		}
		var statement struct {
			PredicateType string         `json:"predicateType"`
			Predicate     map[string]any `json:"predicate"`
		}
		Expect(json.Unmarshal(envelope.Payload, &statement)).To(Succeed())
		if statement.PredicateType == predicateType {
			found = append(found, statement.Predicate)
		}
	}
	return found
}

// pushTampered pushes the image of dist with one more layer in its amd64
// image to ref and returns the new index's descriptor.
func pushTampered(ctx context.Context, ref, dist string) release.Descriptor {
	GinkgoHelper()
	index, closeArchive, err := imagebuild.ReadOCIArchive(filepath.Join(dist, "component-operator-"+version+".oci.tar"))
	Expect(err).NotTo(HaveOccurred())
	defer closeArchive()
	manifest, err := index.IndexManifest()
	Expect(err).NotTo(HaveOccurred())
	var images []v1.Image
	var platforms []v1.Platform
	for i, m := range manifest.Manifests {
		img, err := index.Image(m.Digest)
		Expect(err).NotTo(HaveOccurred())
		if i == 0 {
			img, err = mutate.AppendLayers(img, static.NewLayer([]byte("evil"), types.OCILayer))
			Expect(err).NotTo(HaveOccurred())
		}
		images, platforms = append(images, img), append(platforms, *m.Platform)
	}
	tampered, err := imagebuild.NewIndex(platforms, images)
	Expect(err).NotTo(HaveOccurred())
	digest, err := imagebuild.Push(ctx, tampered, ref)
	Expect(err).NotTo(HaveOccurred())
	raw, err := tampered.RawManifest()
	Expect(err).NotTo(HaveOccurred())
	return release.Descriptor{MediaType: string(types.OCIImageIndex), Digest: digest.String(), Size: int64(len(raw))}
}

// swapPayload is bundle with its DSSE payload replaced, its signature kept.
func swapPayload(bundle, payload []byte) []byte {
	GinkgoHelper()
	var b map[string]any
	Expect(json.Unmarshal(bundle, &b)).To(Succeed())
	envelope, ok := b["dsseEnvelope"].(map[string]any)
	Expect(ok).To(BeTrue(), fmt.Sprintf("no DSSE envelope in %s", bundle))
	envelope["payload"] = payload
	out, err := json.Marshal(b)
	Expect(err).NotTo(HaveOccurred())
	return out
}
