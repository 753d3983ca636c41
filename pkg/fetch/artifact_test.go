package fetch_test

import (
	"archive/tar"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

var _ = Describe("Artifact", func() {
	ctx := context.Background()

	// fetchArchive serves data and fetches it with its own digest into a
	// fresh cache, returning the result, the error and the cache directory.
	fetchArchive := func(data []byte, opts ...fetch.Option) (fetch.Fetched, string, error) {
		srv, _ := serveFiles(map[string][]byte{"/a.tar.gz": data})
		dir := GinkgoT().TempDir()
		cache, err := fetch.NewCache(dir, 1<<30)
		Expect(err).NotTo(HaveOccurred())
		got, err := fetch.NewFetcher(cache, opts...).Artifact(ctx, fetch.ArtifactRequest{URL: srv.URL + "/a.tar.gz", Digest: sha256Of(data), Revision: "main@sha1:abc"})
		return got, dir, err
	}

	It("extracts an artifact whose digest matches, and does not download it again", func() {
		data := tarGz(
			tarEntry{name: "./", typeflag: tar.TypeDir},
			file("kustomization.yaml", "resources: [cm.yaml]\n"),
			file("base/cm.yaml", "kind: ConfigMap\n"),
			symlink("cm.yaml", "base/cm.yaml"),
		)
		srv, requests := serveFiles(map[string][]byte{"/a.tar.gz": data})
		f, _ := newFetcher()
		req := fetch.ArtifactRequest{URL: srv.URL + "/a.tar.gz", Digest: sha256Of(data), Revision: "main@sha1:abc"}
		got, err := f.Artifact(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.URL).To(Equal(req.URL))
		Expect(got.Revision).To(Equal("main@sha1:abc"))
		Expect(got.Digest).To(Equal(req.Digest))
		Expect(os.ReadFile(filepath.Join(got.Dir, "kustomization.yaml"))).To(Equal([]byte("resources: [cm.yaml]\n")))
		Expect(os.ReadFile(filepath.Join(got.Dir, "cm.yaml"))).To(Equal([]byte("kind: ConfigMap\n")))

		again, err := f.Artifact(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(got))
		Expect(requests.Count("")).To(Equal(1))
	})

	It("accepts a sha512 digest", func() {
		data := tarGz(file("a.txt", "a"))
		srv, _ := serveFiles(map[string][]byte{"/a.tar.gz": data})
		sum := sha512.Sum512(data)
		f, _ := newFetcher()
		got, err := f.Artifact(ctx, fetch.ArtifactRequest{URL: srv.URL + "/a.tar.gz", Digest: "sha512:" + hex.EncodeToString(sum[:])})
		Expect(err).NotTo(HaveOccurred())
		Expect(os.ReadFile(filepath.Join(got.Dir, "a.txt"))).To(Equal([]byte("a")))
	})

	It("refuses an artifact that does not match its digest, and keeps nothing of it", func() {
		data := tarGz(file("a.txt", "a"))
		srv, _ := serveFiles(map[string][]byte{"/a.tar.gz": data})
		dir := GinkgoT().TempDir()
		cache, err := fetch.NewCache(dir, 1<<30)
		Expect(err).NotTo(HaveOccurred())
		want := "sha256:" + strings.Repeat("0", 64)
		_, err = fetch.NewFetcher(cache).Artifact(ctx, fetch.ArtifactRequest{URL: srv.URL + "/a.tar.gz", Digest: want})
		var mismatch *fetch.DigestMismatchError
		Expect(errors.As(err, &mismatch)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError("digest mismatch for " + srv.URL + "/a.tar.gz: want " + want + ", got " + sha256Of(data)))
		Expect(fetch.IsTransient(err)).To(BeFalse())
		Expect(os.ReadDir(dir)).To(BeEmpty())
	})

	It("refuses a malformed digest", func() {
		f, _ := newFetcher()
		_, err := f.Artifact(ctx, fetch.ArtifactRequest{URL: "http://127.0.0.1:1/a.tar.gz", Digest: "md5:abc"})
		Expect(err).To(MatchError(`artifact http://127.0.0.1:1/a.tar.gz: digest "md5:abc": unsupported algorithm "md5" (want sha256, sha384 or sha512)`))
		_, err = f.Artifact(ctx, fetch.ArtifactRequest{URL: "http://127.0.0.1:1/a.tar.gz", Digest: "sha256:../../etc"})
		Expect(err).To(MatchError(ContainSubstring("want 64 hex digits")))
	})

	DescribeTable("refuses an entry that would reach outside the artifact, and keeps nothing",
		func(reason string, entries ...tarEntry) {
			_, dir, err := fetchArchive(tarGz(entries...))
			var unsafe *fetch.UnsafeArchiveError
			Expect(errors.As(err, &unsafe)).To(BeTrue(), "%v", err)
			Expect(unsafe.Reason).To(ContainSubstring(reason))
			Expect(os.ReadDir(dir)).To(BeEmpty())
			Expect(filepath.Join(filepath.Dir(dir), "evil")).NotTo(BeAnExistingFile())
		},
		Entry("a .. path", `path contains ".."`, file("ok.txt", "ok"), file("../evil", "x")),
		Entry("a .. inside a path", `path contains ".."`, file("a/../../evil", "x")),
		Entry("an absolute path", "absolute path", file("/tmp/evil", "x")),
		Entry("a symlink to an absolute path", "symlink to absolute path", symlink("etc", "/etc")),
		Entry("a symlink outside", "leads outside the archive", symlink("sub/up", "../../evil")),
		Entry("a symlink outside through another symlink", "leads outside the archive",
			symlink("here", "."), symlink("up", "here/..")),
		Entry("a symlink loop", "makes a loop of symlinks", symlink("a", "b"), symlink("b", "a/x")),
		Entry("a hard link", "hard links are not supported", tarEntry{name: "h", link: "ok.txt", typeflag: tar.TypeLink}),
		Entry("a device", "device files", tarEntry{name: "dev", typeflag: tar.TypeChar}),
	)

	It("stops extracting at the size bound, and says so", func() {
		data := tarGz(file("small.txt", "x"), file("big.bin", strings.Repeat("0", 4096)))
		_, dir, err := fetchArchive(data, fetch.WithMaxSize(1024))
		var tooLarge *fetch.SizeLimitError
		Expect(errors.As(err, &tooLarge)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(HaveSuffix("/a.tar.gz exceeds the limit of 1 KiB")))
		Expect(err).To(MatchError(HavePrefix("extracted content of http://")))
		Expect(os.ReadDir(dir)).To(BeEmpty())
	})

	It("bounds the download too", func() {
		data := tarGz(file("a.txt", "a"))
		_, _, err := fetchArchive(data, fetch.WithMaxSize(16))
		Expect(err).To(MatchError(HavePrefix("download of http://")))
	})

	It("says a missing artifact is not transient", func() {
		srv, _ := serveFiles(nil)
		f, _ := newFetcher()
		_, err := f.Artifact(ctx, fetch.ArtifactRequest{URL: srv.URL + "/gone.tar.gz", Digest: sha256Of(nil)})
		Expect(err).To(MatchError("fetching " + srv.URL + "/gone.tar.gz: HTTP 404 Not Found"))
		Expect(fetch.IsTransient(err)).To(BeFalse())
	})
})
