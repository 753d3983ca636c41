package release_test

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/wavekit-dev/wavekit/internal/release"
)

var _ = Describe("signing", func() {
	var key *release.Key
	var public []byte
	BeforeEach(func() {
		private, pub, err := release.GenerateKey([]byte("secret"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(private)).To(HavePrefix("-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----"), "cosign's own file format")
		key, err = release.LoadKey(private, []byte("secret"))
		Expect(err).NotTo(HaveOccurred())
		public = pub
	})

	// verified checks a bundle with sigstore-go, by the public key alone.
	verified := func(b []byte, policy verify.PolicyBuilder) error {
		var parsed bundle.Bundle
		Expect(parsed.UnmarshalJSON(b)).To(Succeed())
		pub, err := cryptoutils.UnmarshalPEMToPublicKey(public)
		Expect(err).NotTo(HaveOccurred())
		verifier, err := signature.LoadDefaultVerifier(pub)
		Expect(err).NotTo(HaveOccurred())
		trusted := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
			return root.NewExpiringKey(verifier, time.Time{}, time.Time{}), nil
		})
		v, err := verify.NewVerifier(trusted, verify.WithNoObserverTimestamps())
		Expect(err).NotTo(HaveOccurred())
		_, err = v.Verify(&parsed, policy)
		return err
	}

	It("refuses the key with a wrong password, and says which variable holds it", func() {
		private, _, err := release.GenerateKey([]byte("secret"))
		Expect(err).NotTo(HaveOccurred())
		_, err = release.LoadKey(private, []byte("wrong"))
		Expect(err).To(MatchError(ContainSubstring("is COSIGN_PASSWORD right?")))
	})

	It("signs a blob so that the public key verifies it, and not another blob", func() {
		b, err := release.SignBlob(key, []byte("SHA256SUMS content"))
		Expect(err).NotTo(HaveOccurred())
		Expect(verified(b, verify.NewPolicy(verify.WithArtifact(bytesReader("SHA256SUMS content")), verify.WithKey()))).To(Succeed())
		Expect(verified(b, verify.NewPolicy(verify.WithArtifact(bytesReader("other content")), verify.WithKey()))).NotTo(Succeed())
	})

	It("attests a statement of a digest, which verifies for that digest only", func() {
		digest := "a3f1c1d1e5b2a6c7d8e9f00112233445566778899aabbccddeeff00112233445"
		statement, err := release.Statement([]release.Subject{{Name: "ghcr.io/wavekit-dev/component-operator", SHA256: digest}}, release.SignaturePredicateType, []byte("{}"))
		Expect(err).NotTo(HaveOccurred())
		b, err := release.Attest(key, statement)
		Expect(err).NotTo(HaveOccurred())
		Expect(verified(b, verify.NewPolicy(verify.WithArtifactDigest("sha256", mustHex(digest)), verify.WithKey()))).To(Succeed())
		other := "00" + digest[2:]
		Expect(verified(b, verify.NewPolicy(verify.WithArtifactDigest("sha256", mustHex(other)), verify.WithKey()))).
			To(MatchError(ContainSubstring("does not match any digest in statement")))
	})

	It("attaches each bundle as cosign v3 does: an OCI artifact of the bundle's type whose subject is the image", func() {
		refs := release.Referrers{Image: "ghcr.io/wavekit-dev/component-operator:v1", Created: commit,
			Subject: release.Descriptor{MediaType: "application/vnd.oci.image.index.v1+json", Digest: "sha256:" + strings64("ab"), Size: 10},
			Bundles: []release.Attached{{PredicateType: release.SBOMPredicateType, Bundle: []byte(`{"mediaType":"x"}`)}}}
		artifacts, err := refs.Artifacts()
		Expect(err).NotTo(HaveOccurred())
		Expect(artifacts).To(HaveLen(1))
		var manifest map[string]any
		Expect(json.Unmarshal(artifacts[0].Manifest, &manifest)).To(Succeed())
		Expect(manifest).To(HaveKeyWithValue("artifactType", release.BundleMediaType))
		Expect(manifest).To(HaveKeyWithValue("subject", HaveKeyWithValue("digest", refs.Subject.Digest)))
		Expect(manifest).To(HaveKeyWithValue("annotations", And(
			HaveKeyWithValue("dev.sigstore.bundle.predicateType", release.SBOMPredicateType),
			HaveKeyWithValue("org.opencontainers.image.created", "2026-11-28T10:00:00Z"))))
		Expect(artifacts[0].Blobs).To(HaveLen(2), "the bundle and the empty config")
		again, err := refs.Artifacts()
		Expect(err).NotTo(HaveOccurred())
		Expect(again[0].Manifest).To(Equal(artifacts[0].Manifest), "the same bundle, the same manifest")
	})
})

func bytesReader(s string) *strings.Reader { return strings.NewReader(s) }

func mustHex(s string) []byte {
	GinkgoHelper()
	b, err := hex.DecodeString(s)
	Expect(err).NotTo(HaveOccurred())
	return b
}

func strings64(pair string) string { return strings.Repeat(pair, 32) }
