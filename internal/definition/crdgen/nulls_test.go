package crdgen_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// nullsChart is a chart whose values.schema.json says "or null" in each way
// public charts do (null in an enum beside a type list, const null, type
// null alone, null branches of anyOf and oneOf, default null) and whose
// values.yaml leaves those fields null.
const nullsChart = "testdata/nulls"

// A kind made from a chart takes the chart's own values.yaml as the spec of
// an instance — the API server accepts it, and so does the offline check
// of wavekit definition render — while what the enums refuse is still
// refused by both; and the API server stores the CRD as it was written, so
// the operator does not write it again on every pass.
func TestAKindMadeFromAChartTakesTheChartsOwnNullDefaults(t *testing.T) {
	values := chartValues(t, nullsChart)
	def := proxyDefinition()
	schema, err := crdgen.SchemaOf(def, nullsChart)
	if err != nil {
		t.Fatal(err)
	}
	crd, err := crdgen.CRD("wavekit.dev", def, schema.Schema)
	if err != nil {
		t.Fatal(err)
	}
	checker, err := crdschema.NewChecker(schema.Schema)
	if err != nil {
		t.Fatal(err)
	}
	env := serve(t, crd)

	t.Run("the chart's values.yaml", func(t *testing.T) {
		expectAdmitted(t, env, checker, values)
		if a := checker.Admit(values); !a.Admitted() {
			t.Errorf("the offline check would change the chart's values: %s", a)
		}
	})
	t.Run("a null on a field that cannot be null is dropped, as the API server drops it", func(t *testing.T) {
		spec := copySpec(values)
		spec["nodeSelector"] = nil
		expectAdmitted(t, env, checker, spec)
		if nulls := checker.Admit(spec).Nulls; len(nulls) != 1 || nulls[0] != "spec.nodeSelector" {
			t.Errorf("the offline check drops the nulls %v, want spec.nodeSelector", nulls)
		}
	})
	refused := []struct {
		path  string
		value any
		says  string
	}{
		{"log.format", "xml", `spec.log.format: Unsupported value: "xml": supported values: "text", "json"`},
		{"log.level", "trace", `spec.log.level: Unsupported value: "trace": supported values: "debug", "info"`},
		{"gateway.scope", "Some", `spec.gateway.scope: Unsupported value: "Some": supported values: "All", "None"`},
		{"access.fields.query.mode", "redact", `spec.access.fields.query.mode: Unsupported value: "redact": supported values: "keep", "drop"`},
		{"ports.web.strategy", "drop", `spec.ports.web.strategy: Unsupported value: "drop": supported values: "keep", "reject"`},
		{"flavour", "odd", `spec.flavour: Unsupported value: "odd": supported values: "plain", "fancy"`},
		{"port", int64(0), "spec.port: Invalid value: 0: "},
		{"strict", nil, `spec.strict: Unsupported value: null: supported values: "on", "off"`},
	}
	for _, tc := range refused {
		t.Run(fmt.Sprintf("%s: %v", tc.path, tc.value), func(t *testing.T) {
			spec := copySpec(values)
			if err := unstructured.SetNestedField(spec, tc.value, strings.Split(tc.path, ".")...); err != nil {
				t.Fatal(err)
			}
			expectRefused(t, env, checker, spec, tc.says)
		})
	}
	t.Run("protocols[1]: sctp", func(t *testing.T) {
		spec := copySpec(values)
		spec["protocols"] = []any{"tcp", "sctp"}
		expectRefused(t, env, checker, spec, `spec.protocols[1]: Unsupported value: "sctp": supported values: "tcp", "udp"`)
	})
}

// chartValues are the values.yaml of the chart in dir, which Helm checks
// against its values.schema.json as helm install does: the fixture's nulls
// are what the schema allows.
func chartValues(t *testing.T, dir string) map[string]any {
	t.Helper()
	ch, err := loader.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := chartutil.ValidateAgainstSchema(ch, ch.Values); err != nil {
		t.Fatalf("Helm refuses the chart's own values: %v", err)
	}
	raw, err := yaml.Marshal(ch.Values)
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := yaml.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	if format, found, _ := unstructured.NestedFieldNoCopy(spec, "log", "format"); !found || format != nil {
		t.Fatalf("values.yaml does not leave log.format null: %v", spec["log"])
	}
	return spec
}

func proxyDefinition() *v1alpha1.ComponentDefinition {
	return &v1alpha1.ComponentDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "proxies.platform.example.com"},
		Spec: v1alpha1.ComponentDefinitionSpec{
			Group:  "platform.example.com",
			Names:  v1alpha1.DefinitionNames{Kind: "Proxy", Plural: "proxies"},
			Source: v1alpha1.DefinitionSource{Source: "nulls"},
		},
	}
}

// serve creates crd on a bare API server, waits until it is established,
// and checks that the API server stored the spec's schema as written.
func serve(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *testcluster.Env {
	t.Helper()
	log.SetLogger(logr.Discard()) // else controller-runtime warns, with a stack trace, that no logger is set
	env, err := testcluster.Start(testcluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	ctx := context.Background()
	if err := env.Client.Create(ctx, crd.DeepCopy()); err != nil {
		t.Fatalf("the API server refuses the CRD: %v", err)
	}
	live := &apiextensionsv1.CustomResourceDefinition{}
	for deadline := time.Now().Add(30 * time.Second); !established(live); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the CRD is not established after 30 s: %v", live.Status.Conditions)
		}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(crd), live); err != nil {
			t.Fatal(err)
		}
	}
	want := crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(want)
	stored, written := specOf(live), specOf(want)
	if !equality.Semantic.DeepEqual(stored, written) {
		t.Errorf("the API server stores another schema than the one written (the operator would write it again on every pass):\nstored:  %s\nwritten: %s", toJSON(stored), toJSON(written))
	}
	return env
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

func specOf(crd *apiextensionsv1.CustomResourceDefinition) apiextensionsv1.JSONSchemaProps {
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
}

func toJSON(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

func copySpec(spec map[string]any) map[string]any {
	return runtime.DeepCopyJSONValue(spec).(map[string]any)
}

// dryRun creates an instance with spec on the API server, server-side dry
// run: what the API server says.
func dryRun(t *testing.T, env *testcluster.Env, spec map[string]any) error {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{"spec": copySpec(spec)}}
	u.SetAPIVersion("platform.example.com/v1alpha1")
	u.SetKind("Proxy")
	u.SetNamespace("default")
	u.SetName("edge")
	return env.Client.Create(context.Background(), u, client.DryRunAll)
}

func expectAdmitted(t *testing.T, env *testcluster.Env, checker *crdschema.Checker, spec map[string]any) {
	t.Helper()
	if err := dryRun(t, env, spec); err != nil {
		t.Errorf("the API server refuses the spec: %v", err)
	}
	if a := checker.Admit(spec); len(a.Refused) > 0 {
		t.Errorf("the offline check refuses the spec: %s", a)
	}
}

func expectRefused(t *testing.T, env *testcluster.Env, checker *crdschema.Checker, spec map[string]any, says string) {
	t.Helper()
	if err := dryRun(t, env, spec); err == nil || !strings.Contains(err.Error(), says) {
		t.Errorf("the API server says %v, want %q", err, says)
	}
	if a := checker.Admit(spec); !strings.Contains(a.String(), says) {
		t.Errorf("the offline check says %q, want %q", a, says)
	}
}
