package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// NormalizeChart rewrites the chart archive at path so that it depends on
// its content only: every entry stamped with created, no owner names, and
// a gzip header without a time or a name. The order of the entries, their
// modes and the header's extra field (Helm's) are kept.
func NormalizeChart(path string, created time.Time) error {
	in, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the chart archive %s: %w", path, err)
	}
	out, err := normalizedArchive(in, created.UTC())
	if err != nil {
		return fmt.Errorf("normalizing the chart archive %s: %w", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}

// normalizedArchive is the gzipped tar archive in, rewritten.
func normalizedArchive(in []byte, created time.Time) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(in))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	zw.Header = gzip.Header{Extra: zr.Header.Extra, OS: 255}
	tr, tw := tar.NewReader(zr), tar.NewWriter(zw)
	for {
		header, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		header.ModTime, header.AccessTime, header.ChangeTime = created, time.Time{}, time.Time{}
		header.Uid, header.Gid, header.Uname, header.Gname = 0, 0, "", ""
		header.Format = tar.FormatUnknown
		header.PAXRecords = nil
		if err := tw.WriteHeader(header); err != nil {
			return nil, err
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
