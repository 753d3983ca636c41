package inputs

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Name is the member name the template gives for v: a DNS label of at
// most 63 characters, or an error that says which input gave what.
func Name(template string, v Values) (string, error) {
	out, err := String(template, v)
	if err != nil {
		return "", fmt.Errorf("spec.inputs.name %q: %w", template, err)
	}
	name, err := textOf(out)
	if err != nil {
		return "", fmt.Errorf("spec.inputs.name %q for input %s: %w", template, v.Input.ID, err)
	}
	if problems := validation.IsDNS1123Label(name); len(problems) > 0 {
		return "", fmt.Errorf("spec.inputs.name %q gives %q for input %s, not a valid name: %s", template, name, v.Input.ID, strings.Join(problems, "; "))
	}
	return name, nil
}

// DefaultName is the name template of a set without spec.inputs.name.
func DefaultName(set string, clusters bool) string {
	if clusters {
		return set + "-${cluster.name}-${input.id}"
	}
	return set + "-${input.id}"
}

func sortStrings(s []string) { slices.Sort(s) }
