package git

import (
	"io"
	"os"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// objectCacheBytes bounds the objects go-git keeps decoded in memory while
// a tree is written: the memory of a fetch is this, the pack's index, and
// the largest file, whatever the size of the repository.
const objectCacheBytes = 8 * cache.MiByte

// repoStorage is a repository being fetched: on disk (never in memory: a
// large repository would fill it), in a temporary directory, and with a
// bound on the pack the remote sends.
type repoStorage struct {
	*filesystem.Storage
	dir   string
	url   string
	limit int64
}

// newRepoStorage makes a repository in a new temporary directory of cache.
func newRepoStorage(c *fetch.Cache, url string, limit int64) (*repoStorage, error) {
	dir, err := c.TempDir("git-")
	if err != nil {
		return nil, err
	}
	st := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(objectCacheBytes), filesystem.Options{ExclusiveAccess: true})
	return &repoStorage{Storage: st, dir: dir, url: url, limit: limit}, nil
}

// remove deletes the repository.
func (s *repoStorage) remove() {
	_ = s.Close()
	_ = os.RemoveAll(s.dir)
}

// PackfileWriter writes the pack the remote sends, and stops it at the
// limit with a fetch.SizeLimitError.
func (s *repoStorage) PackfileWriter() (io.WriteCloser, error) {
	w, err := s.Storage.PackfileWriter()
	if err != nil {
		return nil, err
	}
	return &limitedWriter{w: w, left: s.limit, url: s.url, limit: s.limit}, nil
}

type limitedWriter struct {
	w     io.WriteCloser
	left  int64
	url   string
	limit int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		return 0, &fetch.SizeLimitError{URL: l.url, What: "fetch", Limit: l.limit}
	}
	l.left -= int64(len(p))
	return l.w.Write(p)
}

func (l *limitedWriter) Close() error { return l.w.Close() }
