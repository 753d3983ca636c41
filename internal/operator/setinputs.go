package operator

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
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

// Allow checks url, read for a set of namespace by its field, against the
// operator's --allowed-sources and the namespace's own list.
func (s *SetInputs) Allow(ctx context.Context, namespace, field, url string) error {
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: namespace}}
	return s.r.allowGit(ctx, c, field, url)
}
