package verify_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/localrepo"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/verify"
)

var (
	keysOnce          sync.Once
	signerKey, anyKey *localrepo.PGPKey
)

// pgpKeys makes two PGP keys once for the suite: RSA keys take a while.
func pgpKeys() (*localrepo.PGPKey, *localrepo.PGPKey) {
	keysOnce.Do(func() {
		var err error
		signerKey, err = localrepo.NewPGPKey("signer")
		Expect(err).NotTo(HaveOccurred())
		anyKey, err = localrepo.NewPGPKey("someone else")
		Expect(err).NotTo(HaveOccurred())
	})
	return signerKey, anyKey
}

var _ = Describe("Helm provenance of a chart of a Helm repository", func() {
	ctx := context.Background()
	var (
		repo       *localrepo.Repository
		key, other *localrepo.PGPKey
		repoURL    string
		requests   atomic.Int64
	)

	BeforeEach(func() {
		var err error
		repo, err = localrepo.NewRepository()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(repo.Close)
		key, other = pgpKeys()
		Expect(repo.AddSigned(key, localrepo.Hello("1.0.0"))).To(Succeed())
		Expect(repo.Add(localrepo.Hello("2.0.0"))).To(Succeed())
		target, err := url.Parse(repo.URL)
		Expect(err).NotTo(HaveOccurred())
		proxy := httputil.NewSingleHostReverseProxy(target)
		counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			proxy.ServeHTTP(w, r)
		}))
		DeferCleanup(counting.Close)
		repoURL = counting.URL
	})

	helmVerifier := func(cache *verify.Cache, k *localrepo.PGPKey) fetch.Verifier {
		v, err := verify.New(verify.Helm, "ring", map[string][]byte{"pubring.gpg": k.Keyring}, cache)
		Expect(err).NotTo(HaveOccurred())
		return v
	}
	request := func(version string, v fetch.Verifier) fetch.ChartRequest {
		return fetch.ChartRequest{Repository: repoURL, Name: "hello", Version: version, Verifier: v, MaxAge: 1 << 40}
	}

	It("accepts a chart whose .prov the keyring verifies, and says who signed", func() {
		got, err := newFetcher().Chart(ctx, request("1.0.0", helmVerifier(nil, key)))
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Verified).To(ContainSubstring("Helm provenance of hello-1.0.0.tgz (" + got.Digest + ") verified with the keyring pubring.gpg: signed by signer (test) <signer@example.com>"))
	})

	It("refuses a chart signed with a key the keyring does not hold", func() {
		_, err := newFetcher().Chart(ctx, request("1.0.0", helmVerifier(nil, other)))
		var failed *fetch.VerificationError
		Expect(errors.As(err, &failed)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("provenance file hello-1.0.0.tgz.prov, with the keyring pubring.gpg"))
	})

	It("refuses a chart without a provenance file", func() {
		_, err := newFetcher().Chart(ctx, request("2.0.0", helmVerifier(nil, key)))
		var failed *fetch.VerificationError
		Expect(errors.As(err, &failed)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("provenance file"))
		Expect(err.Error()).To(ContainSubstring("404"))
	})

	It("refuses a chart replaced after it was signed", func() {
		tampered := localrepo.Hello("1.0.0")
		tampered.Values = map[string]any{"greeting": "pwned"}
		Expect(repo.Add(tampered)).To(Succeed()) // a new archive and index digest, the old .prov
		_, err := newFetcher().Chart(ctx, request("1.0.0", helmVerifier(nil, key)))
		var failed *fetch.VerificationError
		Expect(errors.As(err, &failed)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("sha256 sum does not match for hello-1.0.0.tgz"))
	})

	It("verifies a digest once per keyring: a second fetch sends no request", func() {
		cache := verify.NewCache(0)
		f := newFetcher()
		_, err := f.Chart(ctx, request("1.0.0", helmVerifier(cache, key)))
		Expect(err).NotTo(HaveOccurred())
		before := requests.Load()
		_, err = f.Chart(ctx, request("1.0.0", helmVerifier(cache, key)))
		Expect(err).NotTo(HaveOccurred())
		Expect(requests.Load()).To(Equal(before))
	})
})
