package git_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

// zerosMiB is the size of the files of the zeros repository.
const zerosMiB = 32

// allocated is how many bytes of heap do allocated, in all.
func allocated(do func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	do()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

var _ = Describe("the bounds of a fetch", func() {
	It("refuses a small pack of large objects from their headers, before go-git inflates them", func() {
		// Two files of zeros, one a delta of the other: a pack of a few
		// hundred KiB.
		Expect(server.NewZerosRepo("zeros", zerosMiB<<20)).To(Succeed())
		url := server.HTTPURL("zeros")
		var err error

		By("a fetch limited to 2 MiB: no object may inflate to more")
		took := allocated(func() { _, err = newSource(git.WithMaxSize(2<<20)).Get(ctx, git.Request{URL: url}) })
		limit := errorAs[*fetch.SizeLimitError](err)
		Expect(limit.What).To(Equal(fmt.Sprintf("an object (%d MiB inflated) in the pack", zerosMiB)))
		Expect(limit.Limit).To(Equal(int64(2 << 20)))
		Expect(took).To(BeNumerically("<", zerosMiB<<20/2), "no object was inflated into memory")

		By("one object over the limit of one object")
		took = allocated(func() { _, err = newSource(git.WithMaxObjectSize(1<<20)).Get(ctx, git.Request{URL: url}) })
		Expect(errorAs[*fetch.SizeLimitError](err).Limit).To(Equal(int64(1 << 20)))
		Expect(took).To(BeNumerically("<", zerosMiB<<20/2))

		By("a delta of a few bytes that builds a large object counts as that object")
		_, err = newSource(git.WithMaxSize(zerosMiB<<20+zerosMiB<<19), git.WithMaxObjectSize(zerosMiB<<20+1)).Get(ctx, git.Request{URL: url})
		Expect(errorAs[*fetch.SizeLimitError](err).What).To(Equal("fetch (its objects inflated)"), "not the checked-out tree, which comes after")
		Expect(git.IsTransient(err)).To(BeFalse())

		By("within the limits, the files are written")
		tree, err := newSource(git.WithMaxSize(3*zerosMiB<<20), git.WithMaxObjectSize(zerosMiB<<20+1)).Get(ctx, git.Request{URL: url})
		Expect(err).NotTo(HaveOccurred())
		b, err := os.ReadFile(filepath.Join(tree.Dir, "b"))
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(HaveLen(zerosMiB<<20 + 1))
		Expect(bytes.Count(b, []byte{0})).To(Equal(zerosMiB << 20))
	})

	It("keeps the default per-host limit when asked for none, rather than allowing no connection", func() {
		repo := newRepo("no-host-limit", map[string]string{"f": "x"})
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		tree, err := newSource(git.WithHostConcurrency(0), git.WithMaxObjectSize(0)).Get(ctx, git.Request{URL: server.HTTPURL(repo.Name)})
		Expect(err).NotTo(HaveOccurred())
		Expect(read(tree, "f")).To(Equal("x"))
	})
})
