package verify_test

import (
	"context"
	"errors"

	"net/http"
	"os"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/internal/testing/localregistry"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/verify"
)

// countingRegistry is a local registry that counts its requests and can
// serve other bytes for one blob.
type countingRegistry struct {
	*localregistry.Registry
	localregistry.Alterer
	requests atomic.Int64
}

func newCountingRegistry() *countingRegistry {
	r := &countingRegistry{}
	reg, err := localregistry.Start(localregistry.Options{Wrap: func(h http.Handler) http.Handler {
		altering := r.Wrap(h)
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			r.requests.Add(1)
			altering.ServeHTTP(w, req)
		})
	}})
	Expect(err).NotTo(HaveOccurred())
	r.Registry = reg
	DeferCleanup(reg.Close)
	return r
}

func newFetcher() *fetch.Fetcher {
	cache, err := fetch.NewCache(GinkgoT().TempDir(), 1<<30)
	Expect(err).NotTo(HaveOccurred())
	return fetch.NewFetcher(cache)
}

func cosignVerifier(cache *verify.Cache, signers ...*localregistry.Signer) fetch.Verifier {
	data := map[string][]byte{"README": []byte("not a key")}
	for i, s := range signers {
		data[string(rune('a'+i))+"-cosign.pub"] = s.PublicKeyPEM()
	}
	v, err := verify.New(verify.Cosign, "keys", data, cache)
	Expect(err).NotTo(HaveOccurred())
	return v
}

var _ = Describe("cosign verification of an OCI chart", func() {
	ctx := context.Background()
	var (
		reg           *countingRegistry
		signer, other *localregistry.Signer
		request       func(version string, v fetch.Verifier) fetch.ChartRequest
	)

	BeforeEach(func() {
		reg = newCountingRegistry()
		var err error
		signer, err = localregistry.NewSigner()
		Expect(err).NotTo(HaveOccurred())
		other, err = localregistry.NewSigner()
		Expect(err).NotTo(HaveOccurred())
		for _, v := range []string{"1.0.0", "2.0.0", "3.0.0"} {
			Expect(reg.Push("charts", localrepo.Hello(v))).To(Succeed())
		}
		Expect(reg.SignBundle(ctx, "charts", "hello", "1.0.0", signer)).To(Succeed())
		Expect(reg.SignTag(ctx, "charts", "hello", "2.0.0", signer)).To(Succeed())
		request = func(version string, v fetch.Verifier) fetch.ChartRequest {
			return fetch.ChartRequest{Repository: reg.Repository("charts"), Name: "hello", Version: version, Insecure: true, Verifier: v, MaxAge: 1 << 40}
		}
	})

	It("accepts a Sigstore bundle attached as a referrer, and says with which key", func() {
		digest, err := reg.ManifestDigest(ctx, "charts", "hello", "1.0.0")
		Expect(err).NotTo(HaveOccurred())
		got, err := newFetcher().Chart(ctx, request("1.0.0", cosignVerifier(nil, other, signer)))
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Verified).To(ContainSubstring("Sigstore bundle"))
		Expect(got.Verified).To(ContainSubstring("of " + digest + " verified with key b-cosign.pub (sha256:"))
	})

	It("accepts the tag-based signature sha256-<hex>.sig", func() {
		got, err := newFetcher().Chart(ctx, request("2.0.0", cosignVerifier(nil, signer)))
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Verified).To(ContainSubstring("(tag sha256-"))
		Expect(got.Verified).To(ContainSubstring("verified with key a-cosign.pub"))
	})

	It("refuses an unsigned chart, naming the digest and what was tried, and stores nothing", func() {
		digest, err := reg.ManifestDigest(ctx, "charts", "hello", "3.0.0")
		Expect(err).NotTo(HaveOccurred())
		cacheDir := GinkgoT().TempDir()
		cache, err := fetch.NewCache(cacheDir, 1<<30)
		Expect(err).NotTo(HaveOccurred())
		_, err = fetch.NewFetcher(cache).Chart(ctx, request("3.0.0", cosignVerifier(nil, signer)))
		var failed *fetch.VerificationError
		Expect(errors.As(err, &failed)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("@" + digest))
		Expect(err.Error()).To(ContainSubstring("Sigstore bundles: none among the referrers"))
		Expect(err.Error()).To(ContainSubstring("tag sha256-" + strings.TrimPrefix(digest, "sha256:") + ".sig: not found"))
		entries, err := os.ReadDir(cacheDir)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range entries {
			Expect(e.Name()).NotTo(HavePrefix("chart-"))
		}
	})

	It("refuses a signature made with another key, in either format", func() {
		for _, version := range []string{"1.0.0", "2.0.0"} {
			_, err := newFetcher().Chart(ctx, request(version, cosignVerifier(nil, other)))
			var failed *fetch.VerificationError
			Expect(errors.As(err, &failed)).To(BeTrue(), "%s: %v", version, err)
			Expect(err.Error()).To(ContainSubstring("no cosign signature verified with key a-cosign.pub"))
		}
	})

	It("refuses a chart whose content the registry alters after the signed manifest", func() {
		layer, err := reg.LayerDigest(ctx, "charts", "hello", "1.0.0")
		Expect(err).NotTo(HaveOccurred())
		reg.Alter(layer)
		_, err = newFetcher().Chart(ctx, request("1.0.0", cosignVerifier(nil, signer)))
		var failed *fetch.VerificationError
		Expect(errors.As(err, &failed)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("the content served for the signed manifest"))
	})

	It("verifies a digest once per key material: a second fetch sends no request", func() {
		cache := verify.NewCache(0)
		f := newFetcher()
		_, err := f.Chart(ctx, request("1.0.0", cosignVerifier(cache, signer)))
		Expect(err).NotTo(HaveOccurred())
		before := reg.requests.Load()
		got, err := f.Chart(ctx, request("1.0.0", cosignVerifier(cache, signer)))
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Verified).To(ContainSubstring("verified with key a-cosign.pub"))
		Expect(reg.requests.Load()).To(Equal(before))

		_, err = f.Chart(ctx, request("1.0.0", cosignVerifier(cache, other)))
		Expect(err).To(HaveOccurred(), "new key material is verified again")
		Expect(reg.requests.Load()).To(BeNumerically(">", before))
	})
})

var _ = Describe("the keys of a Secret", func() {
	It("names the keys it reads and the Secret's keys when none match", func() {
		_, err := verify.New(verify.Cosign, "keys", map[string][]byte{"cosign.key": nil, "public": nil}, nil)
		Expect(err).To(MatchError("no key named *.pub in Secret keys: cosign reads only those (the Secret's keys: cosign.key, public)"))
		_, err = verify.New(verify.Helm, "ring", map[string][]byte{"pubring.kbx": nil}, nil)
		Expect(err).To(MatchError("no key named *.gpg in Secret ring: helm reads only those (the Secret's keys: pubring.kbx)"))
	})

	It("refuses a key that is not a PEM public key, naming it", func() {
		_, err := verify.New(verify.Cosign, "keys", map[string][]byte{"cosign.pub": []byte("nope")}, nil)
		Expect(err).To(MatchError(ContainSubstring("key cosign.pub: not a PEM public key")))
	})
})
