package patch

import (
	"errors"
	"fmt"

	//lint:ignore SA1019 kustomize's builtin plugins have no other public home in API v0.
	"sigs.k8s.io/kustomize/api/builtins"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"
)

// pluginConfig is the configuration of kustomize's PatchTransformer, as the
// patches field of a kustomization gives it.
type pluginConfig struct {
	Patch  string          `json:"patch"`
	Target *types.Selector `json:"target,omitempty"`
}

// plugin returns kustomize's PatchTransformer configured with a patch and
// target. The configuration parses the patch.
func (s *objectSet) plugin(text string, target *types.Selector) (resmap.Transformer, error) {
	if err := s.checkParses(text, target != nil); err != nil {
		return nil, err
	}
	config, err := yaml.Marshal(pluginConfig{Patch: text, Target: target})
	if err != nil {
		return nil, fmt.Errorf("encoding the configuration of kustomize's PatchTransformer: %w", err)
	}
	plugin := builtins.NewPatchTransformerPlugin()
	if err := plugin.Config(resmap.NewPluginHelpers(nil, nil, s.factory, nil), config); err != nil {
		return nil, err
	}
	return plugin, nil
}

var errEmpty = errors.New("holds no patch")

// checkParses rejects a patch that kustomize would reject with a message
// that hides why (it quotes the patch instead) or that names an object
// instead of the patch, and an empty one, which kustomize takes for a
// strategic merge patch that changes nothing.
func (s *objectSet) checkParses(text string, targeted bool) error {
	docs, errSM := s.factory.RF().SliceFromBytes([]byte(text))
	switch {
	case errSM == nil && len(docs) == 0:
		return errEmpty
	case errSM == nil && targeted && len(docs) > 1:
		return fmt.Errorf("holds %d objects; a strategic merge patch with a target must hold one", len(docs))
	case errSM == nil, looksLikeJSON6902(text):
		return nil
	default:
		return fmt.Errorf("is not a strategic merge patch: %w", errSM)
	}
}

// looksLikeJSON6902 says whether text is a JSON or YAML list, which kustomize
// reads as a JSON 6902 patch and then judges itself.
func looksLikeJSON6902(text string) bool {
	var list []any
	return yaml.Unmarshal([]byte(text), &list) == nil && list != nil
}
