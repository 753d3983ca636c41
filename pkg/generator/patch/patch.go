package patch

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/wavekit-dev/wavekit/pkg/generator"
)

// Patch is one kustomize patch: a strategic merge patch (a YAML/JSON object)
// or a JSON 6902 patch (a YAML/JSON list of operations), applied to the
// objects Target selects; without Target, a strategic merge patch applies to
// the object with its kind, name (and namespace, if given).
type Patch struct {
	Patch  string
	Target *Selector
}

// ErrNoMatch is the reason of the error of a patch that selects no object.
var ErrNoMatch = errors.New("matches no object")

// Apply applies patches in order to objects and returns the patched objects
// in the same order (new unstructured objects; the input may be left as is).
func Apply(objects []client.Object, patches []Patch) ([]client.Object, error) {
	if len(patches) == 0 {
		return objects, nil
	}
	set, err := newObjectSet(objects)
	if err != nil {
		return nil, err
	}
	for i, p := range patches {
		if err := set.apply(i+1, p); err != nil {
			return nil, err
		}
	}
	return set.objects()
}

// Transformer returns a generator.ObjectTransformer that applies patches to
// the objects of a generator with Apply.
func Transformer(patches []Patch) generator.ObjectTransformer {
	return generator.ObjectTransformerFunc(func(_ context.Context, _, _ string, objects []client.Object) ([]client.Object, error) {
		return Apply(objects, patches)
	})
}

// apply applies patch number n (from 1).
func (s *objectSet) apply(n int, p Patch) error {
	if p.Target != nil {
		if err := s.applyTargeted(p.Patch, kustomizeSelector(p.Target)); err != nil {
			return fmt.Errorf("patch %d (target %s): %w", n, describe(p.Target), err)
		}
		return nil
	}
	docs, err := s.untargetedDocs(p.Patch)
	if err != nil {
		return fmt.Errorf("patch %d: %w", n, err)
	}
	for _, doc := range docs {
		if err := s.applyDoc(doc); err != nil {
			return fmt.Errorf("patch %d (%s): %w", n, describeID(doc.CurId()), err)
		}
	}
	return nil
}

// applyTargeted applies a patch to every object target selects.
func (s *objectSet) applyTargeted(text string, target types.Selector) error {
	plugin, err := s.plugin(text, &target)
	if err != nil {
		return err
	}
	selected, err := s.resources.Select(target)
	if err != nil {
		return fmt.Errorf("selecting objects: %w", err)
	}
	if len(selected) == 0 {
		return ErrNoMatch
	}
	for _, res := range selected {
		if err := s.transform(plugin, res); err != nil {
			return err
		}
	}
	return nil
}

// untargetedDocs parses a patch without target: it must be a strategic merge
// patch, whose objects each name the object they patch.
func (s *objectSet) untargetedDocs(text string) ([]*resource.Resource, error) {
	if _, err := s.plugin(text, nil); err != nil {
		return nil, err
	}
	docs, err := s.factory.RF().SliceFromBytes([]byte(text))
	if err != nil {
		return nil, errNeedsTarget
	}
	return docs, nil
}

var errNeedsTarget = errors.New("a JSON 6902 patch needs a target")

// applyDoc applies one object of a strategic merge patch without target to
// the object it names.
func (s *objectSet) applyDoc(doc *resource.Resource) error {
	res, err := s.named(doc.CurId())
	if err != nil {
		return err
	}
	text, err := doc.AsYAML()
	if err != nil {
		return fmt.Errorf("encoding the patch: %w", err)
	}
	// The object is found: the empty selector picks it alone out of the
	// one-object map that transform gives the plugin.
	plugin, err := s.plugin(string(text), &types.Selector{})
	if err != nil {
		return err
	}
	return s.transform(plugin, res)
}

// transform runs plugin on res alone, so that an error is about one object,
// and drops res if the patch deleted it.
func (s *objectSet) transform(plugin resmap.Transformer, res *resource.Resource) error {
	what := describeID(res.CurId())
	one := resmap.New()
	if err := one.Append(res); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := plugin.Transform(one); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if res.IsNilOrEmpty() {
		s.resources.DropEmpties()
	}
	return nil
}
