package git

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// scanPack reads the headers of a pack's objects, before go-git indexes it,
// and refuses the pack when an object inflates to more than lim.object, or
// its objects together to more than lim.pack. A delta's header gives the
// size of its own data; the size of the object it builds is the second
// number of that data, which is inflated (as a stream, to nothing) to
// read it. What is held in memory is a few buffers, whatever the pack.
func scanPack(r io.Reader, lim limits, url string) error {
	sc := packfile.NewScanner(r)
	_, count, err := sc.Header()
	if err != nil {
		return packError(err)
	}
	tooLarge := func(size int64) error {
		return &fetch.SizeLimitError{URL: url, What: fmt.Sprintf("an object (%s inflated) in the pack", mib(size)), Limit: lim.object}
	}
	var total int64
	for range count {
		h, err := sc.NextObjectHeader()
		if err != nil {
			return packError(err)
		}
		if h.Length > lim.object {
			return tooLarge(h.Length)
		}
		var head deltaHead
		n, _, err := sc.NextObject(&head)
		switch {
		case err != nil:
			return packError(err)
		case n != h.Length:
			return packError(fmt.Errorf("an object at %d inflates to %d bytes, its header says %d", h.Offset, n, h.Length))
		}
		size := h.Length
		if h.Type.IsDelta() {
			target, err := head.targetSize()
			if err != nil {
				return packError(fmt.Errorf("the delta at %d: %w", h.Offset, err))
			}
			if target > lim.object {
				return tooLarge(target)
			}
			size = max(size, target)
		}
		if total += size; total > lim.pack {
			return &fetch.SizeLimitError{URL: url, What: "fetch (its objects inflated)", Limit: lim.pack}
		}
	}
	return nil
}

// deltaHead keeps the first bytes of what is written to it: a delta's two
// sizes, of its base and of what it builds.
type deltaHead struct {
	b [2 * maxVarintBytes]byte
	n int
}

// maxVarintBytes is the longest size a delta's header holds (64 bits).
const maxVarintBytes = 10

func (d *deltaHead) Write(p []byte) (int, error) {
	d.n += copy(d.b[d.n:], p)
	return len(p), nil
}

// targetSize reads the second size of a delta's header.
func (d *deltaHead) targetSize() (int64, error) {
	rest := d.b[:d.n]
	var size uint64
	for range 2 {
		size = 0
		for shift := uint(0); ; shift += 7 {
			if len(rest) == 0 || shift > 63 {
				return 0, errors.New("its header cannot be read")
			}
			c := rest[0]
			rest = rest[1:]
			size |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				break
			}
		}
	}
	if size > 1<<62 {
		return 0, errors.New("its header cannot be read")
	}
	return int64(size), nil
}

// mib says a size in MiB, or bytes below one.
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
