package operator

import (
	"errors"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestGitRefusals: each refusal of a Git source that only a change fixes
// has its Ready reason and is looked at again at the Component's interval;
// what may pass alone is retried, and an allow-list's refusal is left as
// it is.
func TestGitRefusals(t *testing.T) {
	c := &v1alpha1.Component{Spec: v1alpha1.ComponentSpec{Git: &v1alpha1.GitSource{URL: "https://git.example.com/r.git", Interval: &metav1.Duration{Duration: time.Hour}}}}
	interval := c.GetRequeueInterval()
	tree := git.Tree{Dir: t.TempDir(), URL: "https://git.example.com/r.git", Revision: "main@sha1:0123"}
	_, missing := treePath(tree, "nothere", "spec.git.path", true)
	for _, tc := range []struct {
		name     string
		err      error
		reason   string // of a manifests.RefusalError; "" for none
		recheck  bool
		verified bool // a manifests.VerificationError
	}{
		{"an unknown ref", gitError(c, "spec.git", &git.RefNotFoundError{URL: tree.URL, Ref: git.Ref{Branch: "nope"}}), ReasonRefNotFound, true, false},
		{"a pack over the limit", gitError(c, "spec.git", fmt.Errorf("fetching: %w", &fetch.SizeLimitError{URL: tree.URL, What: "fetch", Limit: 2 << 20})), ReasonSourceTooLarge, true, false},
		{"a host key known_hosts lacks", gitError(c, "spec.git", &git.HostKeyError{Host: "git.example.com:22", Presented: "SHA256:a"}), ReasonHostKeyMismatch, true, false},
		{"a missing path", recheckGit(c, missing), ReasonPathNotFound, true, false},
		{"an unsigned commit", gitError(c, "spec.git", &git.VerificationError{URL: tree.URL, Object: "commit 0123", Err: errors.New("it is not signed")}), "", true, true},
		{"a missing repository", gitError(c, "spec.git", &git.NotFoundError{URL: tree.URL}), "", true, false},
		{"a refused URL", gitError(c, "spec.git", &manifests.RefusalError{Reason: ReasonSourceNotAllowed, Err: errors.New("not allowed")}), ReasonSourceNotAllowed, false, false},
	} {
		var refusal *manifests.RefusalError
		switch {
		case tc.reason != "" && (!errors.As(tc.err, &refusal) || refusal.Reason != tc.reason):
			t.Errorf("%s: %v: want reason %s", tc.name, tc.err, tc.reason)
		case tc.reason == "" && errors.As(tc.err, &refusal):
			t.Errorf("%s: reason %s, want none", tc.name, refusal.Reason)
		}
		var recheck *manifests.RecheckError
		if got := errors.As(tc.err, &recheck) && recheck.After == interval; got != tc.recheck {
			t.Errorf("%s: looked at again at the interval %s: %t, want %t", tc.name, interval, got, tc.recheck)
		}
		var verification *manifests.VerificationError
		if got := errors.As(tc.err, &verification); got != tc.verified {
			t.Errorf("%s: a verification failure: %t, want %t", tc.name, got, tc.verified)
		}
	}
	var retriable *component.RetriableError
	if !errors.As(gitError(c, "spec.git", fmt.Errorf("looking: %w", &fetch.HTTPError{URL: tree.URL, StatusCode: 503})), &retriable) {
		t.Errorf("a 503 is not retried")
	}
}
