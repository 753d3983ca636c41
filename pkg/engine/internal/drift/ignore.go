package drift

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// IgnoreRule is a manifests.IgnoreRule ready to match objects.
type IgnoreRule struct {
	paths                   []manifests.Pointer
	group, version, kind    string
	anyTarget               bool
	name, namespace         *regexp.Regexp
	labelSel, annotationSel labels.Selector
}

// CompileIgnoreRules checks and compiles the owner's ignore rules; a bad
// pointer, expression or selector is a manifests.UserError naming the rule.
func CompileIgnoreRules(rules []manifests.IgnoreRule) ([]IgnoreRule, error) {
	out := make([]IgnoreRule, 0, len(rules))
	for i, rule := range rules {
		compiled, err := compileIgnoreRule(rule)
		if err != nil {
			return nil, &manifests.UserError{Err: fmt.Errorf("drift ignore rule %d: %w", i+1, err)}
		}
		out = append(out, compiled)
	}
	return out, nil
}

func compileIgnoreRule(rule manifests.IgnoreRule) (IgnoreRule, error) {
	var r IgnoreRule
	for _, text := range rule.Paths {
		p, err := manifests.ParsePointer(text)
		if err != nil {
			return r, err
		}
		r.paths = append(r.paths, p)
	}
	t := rule.Target
	if t == nil {
		r.anyTarget = true
		return r, nil
	}
	r.group, r.version, r.kind = t.Group, t.Version, t.Kind
	var err error
	if r.name, err = anchored("name", t.Name); err != nil {
		return r, err
	}
	if r.namespace, err = anchored("namespace", t.Namespace); err != nil {
		return r, err
	}
	if r.labelSel, err = selector("labelSelector", t.LabelSelector); err != nil {
		return r, err
	}
	r.annotationSel, err = selector("annotationSelector", t.AnnotationSelector)
	return r, err
}

// anchored compiles a regular expression that must match the whole text (nil for "").
func anchored(field, expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile("^(?:" + expr + ")$")
	if err != nil {
		return nil, fmt.Errorf("target %s %q: %w", field, expr, err)
	}
	return re, nil
}

func selector(field, text string) (labels.Selector, error) {
	if text == "" {
		return nil, nil
	}
	sel, err := labels.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("target %s %q: %w", field, text, err)
	}
	return sel, nil
}

// matches tells whether the rule's target selects obj.
func (r IgnoreRule) matches(obj *unstructured.Unstructured) bool {
	if r.anyTarget {
		return true
	}
	gvk := obj.GroupVersionKind()
	switch {
	case r.group != "" && r.group != gvk.Group:
		return false
	case r.version != "" && r.version != gvk.Version, r.kind != "" && r.kind != gvk.Kind:
		return false
	case r.name != nil && !r.name.MatchString(obj.GetName()), r.namespace != nil && !r.namespace.MatchString(obj.GetNamespace()):
		return false
	case r.labelSel != nil && !r.labelSel.Matches(labels.Set(obj.GetLabels())):
		return false
	case r.annotationSel != nil && !r.annotationSel.Matches(labels.Set(obj.GetAnnotations())):
		return false
	}
	return true
}

// IgnoredPaths are the paths of obj that the rules and its own
// <prefix>/ignore-fields annotation (among annotations, obj's) ignore.
func IgnoredPaths(prefix string, obj *unstructured.Unstructured, annotations map[string]string, rules []IgnoreRule, describe string) ([]manifests.Pointer, error) {
	paths, err := manifests.ParseIgnoreFields(prefix, describe, annotations)
	if err != nil {
		return nil, err
	}
	for _, r := range rules {
		if r.matches(obj) {
			paths = append(paths, r.paths...)
		}
	}
	return paths, nil
}

// ownedByOthers tells whether a field manager other than owner owns the
// field at p of live, or a field under it, by live's managedFields.
func ownedByOthers(live *unstructured.Unstructured, p manifests.Pointer, owner string) bool {
	for _, e := range live.GetManagedFields() {
		if (e.Manager == owner && e.Subresource == "") || e.FieldsV1 == nil {
			continue
		}
		var fields map[string]any
		if json.Unmarshal(e.FieldsV1.Raw, &fields) != nil {
			continue
		}
		if fieldsHave(fields, live.Object, p) {
			return true
		}
	}
	return false
}

// fieldsHave walks a FieldsV1 tree and the object it describes along p and
// tells whether the tree reaches the end of p.
func fieldsHave(fields map[string]any, obj any, p manifests.Pointer) bool {
	if len(p) == 0 {
		return true
	}
	switch o := obj.(type) {
	case map[string]any:
		next, ok := fields["f:"+p[0]].(map[string]any)
		return ok && fieldsHave(next, o[p[0]], p[1:])
	case []any:
		i, err := strconv.Atoi(p[0])
		if err != nil || i < 0 || i >= len(o) {
			return false
		}
		for key, next := range fields {
			sub, ok := next.(map[string]any)
			if ok && elementKeyMatches(key, i, o[i]) && fieldsHave(sub, o[i], p[1:]) {
				return true
			}
		}
	}
	return false
}

// elementKeyMatches tells whether a FieldsV1 list key (i:<index>,
// k:<key fields>, v:<value>) names element i, whose value is elem.
func elementKeyMatches(key string, i int, elem any) bool {
	kind, raw, ok := strings.Cut(key, ":")
	if !ok {
		return false
	}
	switch kind {
	case "i":
		return raw == strconv.Itoa(i)
	case "v":
		var v any
		return json.Unmarshal([]byte(raw), &v) == nil && reflect.DeepEqual(jsonvalue.Normalise(v), jsonvalue.Normalise(elem))
	case "k":
		var keys map[string]any
		m, isMap := elem.(map[string]any)
		if json.Unmarshal([]byte(raw), &keys) != nil || !isMap {
			return false
		}
		return jsonvalue.Contains(jsonvalue.Normalise(m), jsonvalue.Normalise(keys))
	}
	return false
}

// LeaveToOthers changes obj, about to be written over live, so that the
// fields at the ignored paths that other field managers own stay theirs:
// for server-side apply they are left out; for a replace (PUT), which would
// reset what it leaves out, they carry the live value. A list element named
// by index is never left out (that would shift the others): it carries the
// live value.
func LeaveToOthers(obj, live *unstructured.Unstructured, ignore []manifests.Pointer, owner string, ssa bool) {
	for _, p := range ignore {
		if !ownedByOthers(live, p, owner) {
			continue
		}
		parent, last := jsonvalue.Lookup(obj.Object, p[:len(p)-1]), p[len(p)-1]
		liveValue := jsonvalue.Lookup(live.Object, p)
		switch container := parent.(type) {
		case map[string]any:
			if ssa || liveValue == nil {
				delete(container, last)
			} else {
				container[last] = liveValue
			}
		case []any:
			if i, err := strconv.Atoi(last); err == nil && i >= 0 && i < len(container) && liveValue != nil {
				container[i] = liveValue
			}
		}
	}
}
