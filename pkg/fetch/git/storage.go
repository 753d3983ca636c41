package git

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// objectCacheBytes bounds the objects go-git keeps decoded in memory while
// a tree is written.
const objectCacheBytes = 8 * cache.MiByte

// largeObjectBytes is the size above which go-git reads an object from the
// pack as a stream rather than whole into memory (a file written out).
const largeObjectBytes = 1 << 20

// limits bound one fetch.
type limits struct {
	// pack bounds the bytes of pack received, and the bytes its objects
	// inflate to, together.
	pack int64
	// object bounds the bytes one object inflates to (a delta: the object
	// it builds).
	object int64
}

// repoStorage is a repository of the cache, being fetched or read: on disk
// (never in memory: a large repository would fill it), with bounds on the
// pack the remote sends.
type repoStorage struct {
	*filesystem.Storage
	dir    string
	url    string // for messages
	limits limits
}

// openRepoStorage opens the repository in dir (an empty directory makes a
// new one).
func openRepoStorage(dir, url string, lim limits) *repoStorage {
	st := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(objectCacheBytes),
		filesystem.Options{ExclusiveAccess: true, LargeObjectThreshold: largeObjectBytes})
	return &repoStorage{Storage: st, dir: dir, url: redactURL(url), limits: lim}
}

// close closes the repository's files: it stays on disk, in the cache.
func (s *repoStorage) close() error {
	if err := s.Close(); err != nil {
		return fmt.Errorf("closing the repository of %s: %w", s.url, err)
	}
	return nil
}

// PackfileWriter takes the pack the remote sends. go-git would index it as
// it arrives, and indexing holds each object whole in memory (a delta's
// result, too), so that a small pack of large objects (a few hundred KiB of
// zeros that inflate to hundreds of MiB) would fill the memory whatever the
// pack's size. So the pack goes to a file first, stopped at the limit; its
// objects' headers are read (scanPack); only a pack within the limits is
// handed to go-git.
func (s *repoStorage) PackfileWriter() (io.WriteCloser, error) {
	f, err := os.CreateTemp(s.dir, "incoming-*.pack")
	if err != nil {
		return nil, err
	}
	return &spool{st: s, f: f, left: s.limits.pack}, nil
}

// spool holds the pack a remote sends until it is whole.
type spool struct {
	st     *repoStorage
	f      *os.File
	left   int64
	failed bool
}

func (w *spool) Write(p []byte) (int, error) {
	if int64(len(p)) > w.left {
		w.failed = true
		return 0, &fetch.SizeLimitError{URL: w.st.url, What: "fetch", Limit: w.st.limits.pack}
	}
	w.left -= int64(len(p))
	n, err := w.f.Write(p)
	if err != nil {
		w.failed = true
	}
	return n, err
}

// Close checks the pack and has go-git index it, unless a write failed
// (go-git reports that error) or nothing came.
func (w *spool) Close() error {
	defer func() {
		_ = w.f.Close()
		_ = os.Remove(w.f.Name())
	}()
	if w.failed || w.left == w.st.limits.pack {
		return nil
	}
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := scanPack(w.f, w.st.limits, w.st.url); err != nil {
		return err
	}
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	index, err := w.st.Storage.PackfileWriter()
	if err != nil {
		return err
	}
	_, err = io.Copy(index, w.f)
	return errors.Join(err, index.Close())
}

// packError says a pack cannot be read.
func packError(err error) error { return fmt.Errorf("reading the pack: %w", err) }
