package instance_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
	"github.com/wavekit-dev/wavekit/internal/definition/instance"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

func TestTheSpecIsTheValuesUnlessFieldsMapIt(t *testing.T) {
	spec := map[string]any{"size": "1Gi", "db": map[string]any{"name": "app"}, "other": true}
	fixed := &apiextensionsv1.JSON{Raw: []byte(`{"image": {"tag": "16"}, "size": "10Mi"}`)}
	got, err := instance.Values(&v1alpha1.ValuesMapping{Fixed: fixed}, spec)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(got)
	if string(raw) != `{"db":{"name":"app"},"image":{"tag":"16"},"other":true,"size":"1Gi"}` {
		t.Errorf("the spec over the fixed values: %s", raw)
	}
	got, err = instance.Values(&v1alpha1.ValuesMapping{Fixed: fixed, Fields: []v1alpha1.FieldMapping{
		{From: "size", To: "persistence.size"}, {From: "db.name"}, {From: "missing", To: "x"},
	}}, spec)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = json.Marshal(got)
	if string(raw) != `{"db":{"name":"app"},"image":{"tag":"16"},"persistence":{"size":"1Gi"},"size":"10Mi"}` {
		t.Errorf("only the mapped fields: %s", raw)
	}
}

func TestAMappingMustNameFieldsOfTheSchema(t *testing.T) {
	r, err := crdschema.Convert([]byte(`{"type":"object","additionalProperties":false,"properties":{
		"size":{"type":"string"},"labels":{"type":"object","additionalProperties":{"type":"string"}},"free":{"type":"object"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ok := &v1alpha1.ValuesMapping{Fields: []v1alpha1.FieldMapping{{From: "size"}, {From: "labels.team"}, {From: "free.any.thing"}}}
	if err := instance.CheckMapping(ok, r.Schema); err != nil {
		t.Errorf("%v", err)
	}
	bad := &v1alpha1.ValuesMapping{Fields: []v1alpha1.FieldMapping{{From: "size"}, {From: "sise"}}}
	if err := instance.CheckMapping(bad, r.Schema); err == nil || !strings.Contains(err.Error(), "spec.values.fields[1].from: the schema of the spec has no field sise") {
		t.Errorf("%v", err)
	}
	twice := &v1alpha1.ValuesMapping{Fields: []v1alpha1.FieldMapping{{From: "size", To: "a"}, {From: "labels.x", To: "a"}}}
	if err := instance.CheckMapping(twice, r.Schema); err == nil || !strings.Contains(err.Error(), "both go to a") {
		t.Errorf("%v", err)
	}
}

func TestABoundInstanceHasTheSettingsOfTheComponentItStandsFor(t *testing.T) {
	i := &instance.Instance{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "db", Annotations: map[string]string{"wavekit.dev/pin-revision": "3"}},
		Spec: map[string]any{"size": "1Gi"}}
	rev := &v1alpha1.ComponentDefinitionRevision{Spec: v1alpha1.ComponentDefinitionRevisionSpec{
		Definition: "postgreses.example.com", Revision: 3,
		Source:   v1alpha1.DefinitionSource{Chart: &v1alpha1.ChartSource{Repository: "https://charts.example.com", Name: "pg", Version: "1.2.3"}},
		Resolved: v1alpha1.ResolvedSource{Digest: "sha256:abc"},
		Instances: v1alpha1.InstanceSettings{ServiceAccountName: "deployer", Intervals: v1alpha1.Intervals{Timeout: &metav1.Duration{Duration: time.Minute}},
			Remediation: &component.Remediation{Retries: 2}},
	}}
	if got := i.GetSpec().ToUnstructured(); len(got) != 0 {
		t.Errorf("unbound, no values: %v", got)
	}
	if err := i.Bind(rev, "wavekit.dev"); err != nil {
		t.Fatal(err)
	}
	if i.IsSuspended() {
		t.Errorf("suspended without the annotation")
	}
	if i.Status.Revision != 3 || i.GetImpersonationUser() != "system:serviceaccount:team:deployer" || i.GetTimeout() != time.Minute ||
		i.GetRemediation().Retries != 2 || i.GetSpec().ToUnstructured()["size"] != "1Gi" || i.Bound().Spec.Chart.Version != "1.2.3" {
		t.Errorf("bound: %+v", i.Bound().Spec)
	}
	if pinned, err := i.Pinned("wavekit.dev"); err != nil || pinned != 3 {
		t.Errorf("pinned %d %v", pinned, err)
	}
	i.Annotations["wavekit.dev/pin-revision"] = "latest"
	if _, err := i.Pinned("wavekit.dev"); err == nil || !strings.Contains(err.Error(), `wavekit.dev/pin-revision is "latest"`) {
		t.Errorf("%v", err)
	}
}

func TestTheSuspendAnnotationSuspendsAnInstance(t *testing.T) {
	rev := &v1alpha1.ComponentDefinitionRevision{Spec: v1alpha1.ComponentDefinitionRevisionSpec{Definition: "webs.example.com", Revision: 1,
		Source: v1alpha1.DefinitionSource{Source: "web"}}}
	for value, want := range map[string]bool{"true": true, "false": false} {
		i := &instance.Instance{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web", Annotations: map[string]string{"wavekit.dev/suspend": value}}}
		if err := i.Bind(rev, "wavekit.dev"); err != nil {
			t.Fatal(err)
		}
		if i.IsSuspended() != want {
			t.Errorf("%s: suspended %v", value, i.IsSuspended())
		}
	}
	other := &instance.Instance{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"other.example.com/suspend": "true"}}}
	if err := other.Bind(rev, "wavekit.dev"); err != nil || other.IsSuspended() {
		t.Errorf("another operator's annotation suspends: %v %v", other.IsSuspended(), err)
	}
	bad := &instance.Instance{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"wavekit.dev/suspend": "yes"}}}
	if err := bad.Bind(rev, "wavekit.dev"); err == nil || !strings.Contains(err.Error(), `the annotation wavekit.dev/suspend is "yes": give true or false`) {
		t.Errorf("%v", err)
	}
}

func TestTheStatusIsAComponentsWithTheRevision(t *testing.T) {
	i := &instance.Instance{Status: instance.Status{Revision: 2, Status: component.Status{ObservedGeneration: 4, State: component.StateReady}}}
	raw, err := json.Marshal(i)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"status":{"observedGeneration":4,"state":"Ready","revision":2}`) {
		t.Errorf("%s", raw)
	}
	copied := i.DeepCopyObject().(*instance.Instance)
	copied.Status.ObservedGeneration = 5
	if i.Status.ObservedGeneration != 4 || copied.Status.Revision != 2 {
		t.Errorf("the copy is not deep")
	}
}
