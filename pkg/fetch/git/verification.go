package git

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
)

// verify checks what req.Verify asks of t, from the raw objects kept with
// its tree, and says what verified it. A verification is remembered by
// key ring and object, so a pass over an unchanged commit costs a lookup
// in memory; a changed key ring verifies again.
func (s *Source) verify(req *Request, t target, stored fetch.Tree) (string, error) {
	keys, mode := req.Verify.Keys, req.Verify.Mode
	var said []string
	if mode == VerifyTag || mode == VerifyTagAndHEAD {
		what := fmt.Sprintf("tag %s", t.tagName)
		if t.tag.IsZero() {
			return "", &VerificationError{URL: redactURL(req.URL), Object: what, Err: fmt.Errorf("it is a lightweight tag: only an annotated tag carries a signature")}
		}
		by, err := s.verified1(keys, plumbing.TagObject, t.tag, stored.Extra["tag"], keys.verifyTag)
		if err != nil {
			return "", &VerificationError{URL: redactURL(req.URL), Object: fmt.Sprintf("%s (%s)", what, t.tag), Err: err}
		}
		said = append(said, what+" signed by "+by)
	}
	if mode == VerifyHEAD || mode == VerifyTagAndHEAD {
		by, err := s.verified1(keys, plumbing.CommitObject, t.commit, stored.Extra["commit"], keys.verifyCommit)
		if err != nil {
			return "", &VerificationError{URL: redactURL(req.URL), Object: "commit " + t.commit.String(), Err: err}
		}
		said = append(said, "commit "+t.commit.String()[:12]+" signed by "+by)
	}
	return strings.Join(said, ", "), nil
}

// verified1 verifies one object, or remembers having done so. The copy
// the cache kept must be the object h names: a copy that does not hash to
// h (changed on disk) is not checked.
func (s *Source) verified1(keys *KeyRing, kind plumbing.ObjectType, h plumbing.Hash, raw64 string, check func([]byte) (string, error)) (string, error) {
	memo := keys.digest + " " + h.String()
	if by, ok := s.verified.Get(memo); ok {
		return by.(string), nil
	}
	raw, err := base64.StdEncoding.DecodeString(raw64)
	if err != nil || len(raw) == 0 {
		return "", fmt.Errorf("the cache holds no copy of the object to check")
	}
	if plumbing.ComputeHash(kind, raw) != h {
		return "", fmt.Errorf("the copy of %s %s the cache holds is not that object", kind, h)
	}
	by, err := check(raw)
	if err != nil {
		return "", err
	}
	s.verified.Add(memo, by)
	return by, nil
}
