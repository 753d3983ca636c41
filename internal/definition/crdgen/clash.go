package crdgen

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// reservedGroups are groups a definition may not use: Kubernetes' own (the
// API server asks for an approval annotation there) and the operator's.
var reservedGroups = []string{".k8s.io", ".kubernetes.io", ".x-k8s.io"}

// CheckGroup refuses a group Kubernetes or the operator keeps, or one the
// operator may not serve: allowed are globs (path.Match, * within a label
// of the group); none allows every group.
func CheckGroup(operator string, allowed []string, group string) error {
	for _, r := range reservedGroups {
		if strings.HasSuffix(group, r) || group == strings.TrimPrefix(r, ".") {
			return fmt.Errorf("spec.group %s is Kubernetes' own: choose a group of your own domain", group)
		}
	}
	if group == v1alpha1.GroupVersion.Group || group == operator {
		return fmt.Errorf("spec.group %s is the operator's own: choose a group of your own domain", group)
	}
	if len(allowed) == 0 || slices.ContainsFunc(allowed, func(g string) bool { return globMatch(g, group) }) {
		return nil
	}
	return fmt.Errorf("spec.group %s is not one the operator may serve (--definition-groups %s)", group, strings.Join(allowed, ","))
}

// globMatch matches group against a pattern whose * stands for one label.
func globMatch(pattern, group string) bool {
	ps, gs := strings.Split(pattern, "."), strings.Split(group, ".")
	if len(ps) != len(gs) {
		return false
	}
	for i := range ps {
		if ps[i] != "*" && ps[i] != gs[i] {
			return false
		}
	}
	return true
}

// Clash says why def's kind clashes with CRDs in the cluster, or "" when
// it does not: its CRD exists and is not the operator's for def, or
// another CRD of its group already has its kind, plural, singular or a
// short name of it.
func Clash(operator string, def *v1alpha1.ComponentDefinition, crds []apiextensionsv1.CustomResourceDefinition) string {
	name := Name(def)
	label := manifests.Key(operator, LabelDefinition)
	for _, crd := range crds {
		if crd.Name == name {
			if owner := crd.Labels[label]; owner != def.Name {
				return fmt.Sprintf("the CRD %s exists and the operator did not write it for this definition: refused, nothing changed", name)
			}
			continue
		}
		if crd.Spec.Group != def.Spec.Group {
			continue
		}
		if taken := takenNames(def, crd.Spec.Names); taken != "" {
			return fmt.Sprintf("%s of group %s is taken by the CRD %s: refused, nothing changed", taken, def.Spec.Group, crd.Name)
		}
	}
	return ""
}

func takenNames(def *v1alpha1.ComponentDefinition, other apiextensionsv1.CustomResourceDefinitionNames) string {
	n := def.Spec.Names
	otherNames := append([]string{other.Plural, other.Singular}, other.ShortNames...)
	switch {
	case n.Kind == other.Kind:
		return "the kind " + n.Kind
	case slices.Contains(otherNames, n.Plural):
		return "the plural " + n.Plural
	case n.Singular != "" && slices.Contains(otherNames, n.Singular):
		return "the singular " + n.Singular
	}
	for _, s := range n.ShortNames {
		if slices.Contains(otherNames, s) {
			return "the short name " + s
		}
	}
	return ""
}
