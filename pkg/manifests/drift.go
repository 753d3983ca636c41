package manifests

import (
	"fmt"
	"strings"
)

// AnnotationIgnoreFields lists JSON pointers (RFC 6901), comma-separated,
// of fields of the object that other writers may own: drift in them is not
// reported, and once the object exists a field another field manager owns is
// left out of what is applied.
const AnnotationIgnoreFields = "ignore-fields"

// DriftMode says what happens when an applied object no longer holds what
// was applied.
// +kubebuilder:validation:Enum=Correct;Warn;Disabled
type DriftMode string

// Drift modes.
const (
	// DriftCorrect applies the object again (the default).
	DriftCorrect DriftMode = "Correct"
	// DriftWarn reports the drift (the Drifted condition, an Event) and
	// leaves the object as it is.
	DriftWarn DriftMode = "Warn"
	// DriftDisabled neither looks for drift nor reports it.
	DriftDisabled DriftMode = "Disabled"
)

// DriftSettings say how a component treats changes others make to the
// objects it applied.
// +kubebuilder:object:generate=true
type DriftSettings struct {
	// Mode is what happens when an applied object no longer holds what was
	// applied: Correct applies it again (the default), Warn reports it in
	// the Drifted condition and an Event and changes nothing, Disabled
	// neither looks for drift nor reports it. In every mode a change of the
	// rendered objects is applied, and a reapply interval, when set, still
	// applies every object at that interval.
	// +optional
	Mode DriftMode `json:"mode,omitempty"`
	// Ignore lists fields that other writers may own (an autoscaler's
	// spec.replicas, an injected annotation). Drift in them is not
	// reported, and once an object exists, a field that another field
	// manager owns is left out of what is applied, so it is neither reset
	// nor taken over. On creation the object is applied as rendered.
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Ignore []IgnoreRule `json:"ignore,omitempty"`
}

// IgnoreRule names fields of the objects a target selects.
// +kubebuilder:object:generate=true
type IgnoreRule struct {
	// Paths are JSON pointers (RFC 6901) of the ignored fields, such as
	// /spec/replicas or /metadata/annotations/sidecar.istio.io~1status
	// ("~1" stands for "/" in a key, "~0" for "~"). A number selects a list
	// element by index.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:Pattern=`^/`
	// +kubebuilder:validation:items:MaxLength=1024
	Paths []string `json:"paths"`
	// Target selects the objects whose fields are ignored; without it, the
	// paths are ignored in every object of the component.
	// +optional
	Target *ObjectSelector `json:"target,omitempty"`
}

// ObjectSelector selects objects as kustomize's patch target does: every
// field given must match.
// +kubebuilder:object:generate=true
type ObjectSelector struct {
	// Group of the objects' API version; empty matches every group.
	// +optional
	Group string `json:"group,omitempty"`
	// Version of the objects' API version.
	// +optional
	Version string `json:"version,omitempty"`
	// Kind of the objects.
	// +optional
	Kind string `json:"kind,omitempty"`
	// Name of the objects, a regular expression matched against the whole name.
	// +optional
	Name string `json:"name,omitempty"`
	// Namespace of the objects, a regular expression matched against the
	// whole namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// LabelSelector selects by label, as kubectl's -l does.
	// +optional
	LabelSelector string `json:"labelSelector,omitempty"`
	// AnnotationSelector selects by annotation, in the same syntax.
	// +optional
	AnnotationSelector string `json:"annotationSelector,omitempty"`
}

// ParseDriftMode checks a drift mode given as text (a flag); empty means
// the default, Correct. The case of the letters does not matter.
func ParseDriftMode(value string) (DriftMode, error) {
	for _, m := range []DriftMode{DriftCorrect, DriftWarn, DriftDisabled} {
		if strings.EqualFold(value, string(m)) {
			return m, nil
		}
	}
	if value == "" {
		return DriftCorrect, nil
	}
	return "", fmt.Errorf("drift mode %q is not one of %s, %s, %s", value, DriftCorrect, DriftWarn, DriftDisabled)
}

// Pointer is a parsed JSON pointer: its reference tokens, unescaped.
type Pointer []string

// ParsePointer parses a JSON pointer (RFC 6901) that names a field: it
// starts with "/", and "~" is only used in "~0" and "~1". The whole
// document ("") is no field.
func ParsePointer(text string) (Pointer, error) {
	if !strings.HasPrefix(text, "/") {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", text)
	}
	tokens := strings.Split(text[1:], "/")
	for i, t := range tokens {
		unescaped, err := unescapeToken(t)
		if err != nil {
			return nil, fmt.Errorf("JSON pointer %q: %w", text, err)
		}
		tokens[i] = unescaped
	}
	return Pointer(tokens), nil
}

// unescapeToken turns "~1" into "/" and "~0" into "~"; any other "~" is an error.
func unescapeToken(token string) (string, error) {
	if !strings.Contains(token, "~") {
		return token, nil
	}
	var b strings.Builder
	for i := 0; i < len(token); i++ {
		if token[i] != '~' {
			b.WriteByte(token[i])
			continue
		}
		if i+1 == len(token) || (token[i+1] != '0' && token[i+1] != '1') {
			return "", fmt.Errorf("%q has a ~ that is neither ~0 nor ~1", token)
		}
		b.WriteByte("~/"[token[i+1]-'0'])
		i++
	}
	return b.String(), nil
}

// String is the pointer in its JSON pointer form.
func (p Pointer) String() string {
	var b strings.Builder
	for _, t := range p {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// ParseIgnoreFields reads the <prefix>/ignore-fields annotation of an
// object (nil when it has none). object names the object in errors; an
// invalid pointer is an *AnnotationError.
func ParseIgnoreFields(prefix, object string, annotations map[string]string) ([]Pointer, error) {
	key := Key(prefix, AnnotationIgnoreFields)
	value, ok := annotations[key]
	if !ok {
		return nil, nil
	}
	var out []Pointer
	for _, text := range strings.Split(value, ",") {
		p, err := ParsePointer(strings.TrimSpace(text))
		if err != nil {
			return nil, &AnnotationError{Object: object, Key: key, Value: value, Allowed: "comma-separated JSON pointers such as /spec/replicas,/metadata/annotations/a~1b: " + err.Error()}
		}
		out = append(out, p)
	}
	return out, nil
}
