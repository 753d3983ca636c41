package v1alpha1_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TestDriftIsExplained keeps `kubectl explain component.spec.drift` useful:
// kubectl explain prints the descriptions of the generated CRD's schema, so
// spec.drift and every field under it must have one.
func TestDriftIsExplained(t *testing.T) {
	drift := expectExplained(t, "drift",
		"spec.drift", "spec.drift.ignore", "spec.drift.ignore[].paths", "spec.drift.ignore[].target",
		"spec.drift.ignore[].target.annotationSelector", "spec.drift.ignore[].target.group", "spec.drift.ignore[].target.kind",
		"spec.drift.ignore[].target.labelSelector", "spec.drift.ignore[].target.name", "spec.drift.ignore[].target.namespace",
		"spec.drift.ignore[].target.version", "spec.drift.mode",
	)
	if enum := drift.Properties["mode"].Enum; len(enum) != 3 {
		t.Errorf("spec.drift.mode allows %d values, want Correct, Warn, Disabled", len(enum))
	}
}

// walk calls visit for s and every property under it; list items are
// explained by their list, so they are walked into but not visited.
func walk(path string, s apiextensionsv1.JSONSchemaProps, visit func(string, apiextensionsv1.JSONSchemaProps)) {
	visit(path, s)
	if s.Items != nil && s.Items.Schema != nil {
		for name, p := range s.Items.Schema.Properties {
			walk(path+"[]."+name, p, visit)
		}
	}
	for name, p := range s.Properties {
		walk(path+"."+name, p, visit)
	}
}

// TestCRDPolicyIsExplained keeps `kubectl explain component.spec.crds`
// useful, and checks that the policy reaches the engine's defaults.
func TestCRDPolicyIsExplained(t *testing.T) {
	crd := componentCRD(t)
	crds, ok := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["crds"]
	if !ok || crds.Description == "" || len(crds.Enum) != 3 {
		t.Fatalf("spec.crds: %+v, want a description and the values Create, CreateReplace, Skip", crds)
	}
	c := &v1alpha1.Component{Spec: v1alpha1.ComponentSpec{CRDs: manifests.CRDSkip}}
	if got := c.GetPolicies().CRDs; got != manifests.CRDSkip {
		t.Errorf("GetPolicies().CRDs = %q, want Skip", got)
	}
}

// TestHealthChecksAreExplained keeps `kubectl explain
// component.spec.healthChecks` useful: the list and every field of an
// entry have a description.
func TestHealthChecksAreExplained(t *testing.T) {
	expectExplained(t, "healthChecks", "spec.healthChecks", "spec.healthChecks[].apiVersion", "spec.healthChecks[].current",
		"spec.healthChecks[].failed", "spec.healthChecks[].inProgress", "spec.healthChecks[].kind")
}

func TestRemediationIsExplained(t *testing.T) {
	expectExplained(t, "remediation", "spec.remediation", "spec.remediation.remediateLastFailure",
		"spec.remediation.retries", "spec.remediation.strategy")
	entry := "status.history[]."
	expectExplainedUnder(t, "status", "history", append([]string{"status.history", entry + "finished", entry + "generation", entry + "message",
		entry + "renderDigest", entry + "result", entry + "source"}, append(sourceFields(entry+"source"), entry+"started")...)...)
	expectExplainedUnder(t, "status", "lastGoodRender", append([]string{"status.lastGoodRender", "status.lastGoodRender.generation",
		"status.lastGoodRender.renderDigest", "status.lastGoodRender.secret", "status.lastGoodRender.source"},
		sourceFields("status.lastGoodRender.source")...)...)
}

// sourceFields are the fields of a manifests.SourceInfo at path, sorted.
func sourceFields(path string) []string {
	dep := path + ".dependencies[]."
	return []string{path + ".dependencies", dep + "chart", dep + "digest", dep + "name", dep + "repository", dep + "verified", dep + "version",
		path + ".digest", path + ".revision", path + ".url", path + ".verified"}
}

// TestChartVerifyIsExplained keeps `kubectl explain
// component.spec.chart.verify` useful: every field has a description, and
// the providers are an enum.
func TestChartVerifyIsExplained(t *testing.T) {
	crd := componentCRD(t)
	verify := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["chart"].Properties["verify"]
	var described []string
	walk("spec.chart.verify", verify, func(path string, s apiextensionsv1.JSONSchemaProps) {
		if s.Description == "" {
			t.Errorf("%s has no description for kubectl explain", path)
		}
		described = append(described, path)
	})
	sort.Strings(described)
	want := "spec.chart.verify spec.chart.verify.provider spec.chart.verify.secretRef spec.chart.verify.secretRef.name"
	if got := strings.Join(described, " "); got != want {
		t.Errorf("fields under spec.chart.verify: %s, want %s", got, want)
	}
	if n := len(verify.Properties["provider"].Enum); n != 2 {
		t.Errorf("spec.chart.verify.provider has %d values, want cosign and helm", n)
	}
}

// expectExplained checks that spec.<field> of the generated CRD and every
// field under it have a description, and that those are the fields want
// names (sorted); it returns the schema of spec.<field>.
func expectExplained(t *testing.T, field string, want ...string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	return expectExplainedUnder(t, "spec", field, want...)
}

// expectExplainedUnder is expectExplained for <root>.<field>.
func expectExplainedUnder(t *testing.T, root, field string, want ...string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	crd := componentCRD(t)
	schema, ok := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties[root].Properties[field]
	if !ok {
		t.Fatalf("the CRD has no %s.%s", root, field)
	}
	var described []string
	walk(root+"."+field, schema, func(path string, s apiextensionsv1.JSONSchemaProps) {
		if s.Description == "" {
			t.Errorf("%s has no description for kubectl explain", path)
		}
		described = append(described, path)
	})
	sort.Strings(described)
	if got, wanted := strings.Join(described, " "), strings.Join(want, " "); got != wanted {
		t.Errorf("fields under %s.%s: %s, want %s", root, field, got, wanted)
	}
	return schema
}

// componentCRD reads the generated CRD of the Component kind.
func componentCRD(t *testing.T) apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", "bases", "wavekit.dev_components.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	return crd
}
