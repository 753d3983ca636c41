package scaffold

import (
	"path"
	"strings"
)

// Generators are the values Options.Generator accepts.
var Generators = []string{"helm", "kustomize", "template", "custom"}

// Options describe the project to generate.
type Options struct {
	// Module is the Go module path of the new project.
	Module string
	// Group is the API group of the custom resource (a DNS subdomain with a dot).
	Group string
	// Version is the API version (default v1alpha1).
	Version string
	// Kind is the custom resource kind, in UpperCamelCase.
	Kind string
	// OperatorName is the annotation prefix, field owner and finalizer (default: Group).
	OperatorName string
	// Image is the operator image reference (default: <kind>-operator:latest).
	Image string
	// Generator is one of Generators.
	Generator string
	// WavekitVersion is the version of wavekit that go.mod requires
	// (default: see Wavekit).
	WavekitVersion string
	// WavekitReplace, when set, is a local wavekit checkout that go.mod
	// replaces wavekit with; the dependency versions are then read from it.
	WavekitReplace string
	// Self is the wavekit that scaffolds; it decides WavekitVersion and
	// WavekitReplace when both are empty (see Wavekit).
	Self Self
}

// withDefaults fills in the optional fields.
func (o Options) withDefaults() Options {
	if o.Version == "" {
		o.Version = "v1alpha1"
	}
	if o.OperatorName == "" {
		o.OperatorName = o.Group
	}
	if o.Image == "" && o.Kind != "" {
		o.Image = strings.ToLower(o.Kind) + "-operator:latest"
	}
	return o
}

// data is dot in every project template.
type data struct {
	Options
	// KindLower is the kind in lower case (file names, the singular).
	KindLower string
	// Plural is the resource name of the kind.
	Plural string
	// Binary is the name of the operator binary and chart.
	Binary string
	// Requires are the require lines of go.mod, besides wavekit.
	Requires []string
}

// newData derives the template data from validated options.
func newData(o Options, requires []string) data {
	lower := strings.ToLower(o.Kind)
	return data{
		Options:   o,
		KindLower: lower,
		Plural:    plural(lower),
		Binary:    binaryName(o.Module, lower),
		Requires:  requires,
	}
}

// plural returns the English plural of a lower-case kind, the way a person
// would write the resource name; the types set it with a marker so that
// controller-gen uses the same one.
func plural(s string) string {
	switch {
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "z"),
		strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	case strings.HasSuffix(s, "y") && len(s) > 1 && !strings.ContainsRune("aeiou", rune(s[len(s)-2])):
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}

// binaryName is the last element of the module path if it is a valid DNS
// label, otherwise <kind>-operator.
func binaryName(module, kindLower string) string {
	base := strings.ToLower(path.Base(module))
	if dnsLabel.MatchString(base) {
		return base
	}
	return kindLower + "-operator"
}

// ImageRepository is the image reference without its tag.
func (d data) ImageRepository() string {
	repo, _ := splitImage(d.Image)
	return repo
}

// ImageTag is the tag of the image reference, or "" when it has none.
func (d data) ImageTag() string {
	_, tag := splitImage(d.Image)
	return tag
}

// splitImage splits "repo:tag" at the colon after the last slash.
func splitImage(image string) (repo, tag string) {
	slash := strings.LastIndex(image, "/")
	if colon := strings.LastIndex(image, ":"); colon > slash {
		return image[:colon], image[colon+1:]
	}
	return image, ""
}
