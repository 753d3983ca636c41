package operator

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
	"github.com/wavekit-dev/wavekit/internal/inputs/gitinputs"
	"github.com/wavekit-dev/wavekit/internal/inputs/pullrequests"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

// SetInputs is what the ComponentSets' inputs read with: the operator's
// shared Git source (its looks at each repository, its cache) and its
// source allow-lists, the same as the Components'.
type SetInputs struct {
	r *resolver
}

// SetInputs returns what the ComponentSets' inputs read with.
func (s *DefinitionSources) SetInputs() *SetInputs { return &SetInputs{r: s.r} }

// Git is the operator's shared Git source.
func (s *SetInputs) Git() *git.Source { return s.r.git }

// Reader is what the sets read their spec.inputs with: pull request APIs
// and Git repositories at URLs the allow-lists admit, with tokens and
// credentials from Secrets of each set's namespace read with secrets (the
// API server: the operator caches no Secret for them).
func (s *SetInputs) Reader(secrets client.Reader) *inputs.Reader {
	allow := func(ctx context.Context, namespace, url string) error {
		return s.Allow(ctx, namespace, "spec.inputs", url)
	}
	reader := &inputs.Reader{PullRequests: pullrequests.New(secrets, pullrequests.WithAllow(allow))}
	if src := s.Git(); src != nil {
		reader.Git = gitinputs.New(src, secrets, gitinputs.WithAllow(allow))
	}
	return reader
}

// Allow checks url, read for a set of namespace by its field, against the
// operator's --allowed-sources and the namespace's own list.
func (s *SetInputs) Allow(ctx context.Context, namespace, field, url string) error {
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: namespace}}
	return s.r.allowGit(ctx, c, field, url)
}
