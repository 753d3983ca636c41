package fetch_test

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

var _ = Describe("Cache", func() {
	ctx := context.Background()

	// artifacts serves n artifacts of about 10 kB each, incompressible.
	artifacts := func(names ...string) (map[string]fetch.ArtifactRequest, *counter) {
		files := map[string][]byte{}
		for _, name := range names {
			files["/"+name] = tarGz(file("data.bin", string(randomBytes(10_000))))
		}
		srv, requests := serveFiles(files)
		reqs := map[string]fetch.ArtifactRequest{}
		for _, name := range names {
			reqs[name] = fetch.ArtifactRequest{URL: srv.URL + "/" + name, Digest: sha256Of(files["/"+name]), Revision: name}
		}
		return reqs, requests
	}

	It("evicts the least recently used entries beyond its bound", func() {
		reqs, requests := artifacts("a", "b", "c")
		dir := GinkgoT().TempDir()
		cache, err := fetch.NewCache(dir, 25_000) // two entries fit, not three
		Expect(err).NotTo(HaveOccurred())
		f := fetch.NewFetcher(cache)
		fetched := map[string]fetch.Fetched{}
		for _, name := range []string{"a", "b", "a", "c"} { // b is now the least recently used
			got, err := f.Artifact(ctx, reqs[name])
			Expect(err).NotTo(HaveOccurred())
			fetched[name] = got
		}
		Expect(fetched["a"].Dir).To(BeADirectory())
		Expect(fetched["c"].Dir).To(BeADirectory())
		Expect(fetched["b"].Dir).NotTo(BeAnExistingFile())
		Expect(cacheEntries(dir)).To(HaveLen(2))
		entries, size := cache.Stats()
		Expect(entries).To(Equal(2))
		Expect(size).To(BeNumerically("<=", 25_000))
		Expect(requests.Count("")).To(Equal(3))

		_, err = f.Artifact(ctx, reqs["b"]) // downloaded again; a goes
		Expect(err).NotTo(HaveOccurred())
		Expect(requests.Count("/b")).To(Equal(2))
		Expect(fetched["a"].Dir).NotTo(BeAnExistingFile())
	})

	It("keeps the entry just added even when it alone is over the bound", func() {
		reqs, _ := artifacts("a", "b")
		cache, err := fetch.NewCache(GinkgoT().TempDir(), 1000)
		Expect(err).NotTo(HaveOccurred())
		f := fetch.NewFetcher(cache)
		a, err := f.Artifact(ctx, reqs["a"])
		Expect(err).NotTo(HaveOccurred())
		Expect(a.Dir).To(BeADirectory())
		b, err := f.Artifact(ctx, reqs["b"])
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Dir).To(BeADirectory())
		Expect(a.Dir).NotTo(BeAnExistingFile())
	})

	It("keeps its entries for the next process and removes what a crash left", func() {
		reqs, requests := artifacts("a")
		dir := GinkgoT().TempDir()
		cache, err := fetch.NewCache(dir, 1<<30)
		Expect(err).NotTo(HaveOccurred())
		first, err := fetch.NewFetcher(cache).Artifact(ctx, reqs["a"])
		Expect(err).NotTo(HaveOccurred())
		half := filepath.Join(dir, ".tmp-123456")
		Expect(os.MkdirAll(filepath.Join(half, "content"), 0o755)).To(Succeed())

		reopened, err := fetch.NewCache(dir, 1<<30)
		Expect(err).NotTo(HaveOccurred())
		Expect(half).NotTo(BeAnExistingFile())
		entries, _ := reopened.Stats()
		Expect(entries).To(Equal(1))
		again, err := fetch.NewFetcher(reopened).Artifact(ctx, reqs["a"])
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(first))
		Expect(requests.Count("")).To(Equal(1))
	})

	It("downloads a digest once for concurrent fetches", func() {
		reqs, requests := artifacts("a")
		f, _ := newFetcher()
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				defer GinkgoRecover()
				_, err := f.Artifact(ctx, reqs["a"])
				Expect(err).NotTo(HaveOccurred())
			})
		}
		wg.Wait()
		Expect(requests.Count("")).To(Equal(1))
	})

	It("refuses a bound that is not positive", func() {
		_, err := fetch.NewCache(GinkgoT().TempDir(), 0)
		Expect(err).To(MatchError(ContainSubstring("the size bound must be positive")))
	})
})

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
