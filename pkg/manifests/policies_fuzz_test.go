package manifests_test

import (
	"errors"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// FuzzParsePolicies parses any value of any wavekit annotation: it must never
// panic, never change the annotations, and an error must be an
// *UnknownKeyError that names the object and an annotation it has, or an
// *AnnotationError that names the object, the key and the value (seeds:
// testdata/fuzz/FuzzParsePolicies).
func FuzzParsePolicies(f *testing.F) {
	f.Add("apply-order", "3", "status-hint", "has-ready-condition")
	f.Fuzz(func(t *testing.T, suffix1, value1, suffix2, value2 string) {
		const prefix, object = "fuzz.wavekit.dev", "ConfigMap ns/fuzz"
		annotations := map[string]string{
			manifests.Key(prefix, suffix1): value1,
			manifests.Key(prefix, suffix2): value2,
		}
		before := maps.Clone(annotations)
		policies, err := manifests.ParsePolicies(prefix, object, annotations, manifests.Defaults{})
		if !maps.Equal(before, annotations) {
			t.Fatalf("annotations changed: %v → %v", before, annotations)
		}
		if err == nil {
			checkPolicies(t, policies)
			return
		}
		var unknownErr *manifests.UnknownKeyError
		if errors.As(err, &unknownErr) {
			if _, ok := annotations[unknownErr.Key]; !ok || !strings.Contains(err.Error(), object) {
				t.Fatalf("error %q names no annotation of %v, or not the object", err, annotations)
			}
			return
		}
		var annotationErr *manifests.AnnotationError
		if !errors.As(err, &annotationErr) {
			t.Fatalf("error %v is neither an *UnknownKeyError nor an *AnnotationError", err)
		}
		msg := err.Error()
		if annotations[annotationErr.Key] != annotationErr.Value {
			t.Fatalf("error names key %q with value %q, annotations are %v", annotationErr.Key, annotationErr.Value, annotations)
		}
		for _, part := range []string{object, annotationErr.Key, strconv.Quote(annotationErr.Value), annotationErr.Allowed} {
			if !strings.Contains(msg, part) {
				t.Fatalf("error %q does not name %q", msg, part)
			}
		}
	})
}

// checkPolicies asserts that parsed policies are values the applier knows.
func checkPolicies(t *testing.T, p manifests.ObjectPolicies) {
	t.Helper()
	switch {
	case p.Reconcile == "" || p.Update == "" || p.Update == manifests.UpdateDefault:
		t.Fatalf("defaults not filled in: %+v", p)
	case p.Delete == "" || p.Delete == manifests.DeleteDefault || p.Adoption == "":
		t.Fatalf("defaults not filled in: %+v", p)
	case p.DeletePropagation != manifests.PropagationBackground && p.DeletePropagation != manifests.PropagationForeground:
		t.Fatalf("delete propagation %q is neither background nor foreground", p.DeletePropagation)
	case p.ReapplyInterval < 0:
		t.Fatalf("negative reapply interval: %+v", p)
	}
	for _, c := range p.StatusHint.Conditions {
		if strings.Contains(c, ",") {
			t.Fatalf("condition %q holds a comma", c)
		}
	}
}
