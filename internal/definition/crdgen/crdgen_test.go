package crdgen_test

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
)

func definition() *v1alpha1.ComponentDefinition {
	return &v1alpha1.ComponentDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "postgreses.platform.example.com"},
		Spec: v1alpha1.ComponentDefinitionSpec{
			Group:  "platform.example.com",
			Names:  v1alpha1.DefinitionNames{Kind: "Postgres", Plural: "postgreses", ShortNames: []string{"pg"}},
			Source: v1alpha1.DefinitionSource{Chart: &v1alpha1.ChartSource{Repository: "https://charts.example.com", Name: "postgres"}},
		},
	}
}

func specSchema(t *testing.T, document string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	r, err := crdschema.Convert([]byte(document))
	if err != nil {
		t.Fatal(err)
	}
	return r.Schema
}

func TestTheCRDServesTheKindWithAComponentsStatus(t *testing.T) {
	def := definition()
	def.Spec.PrinterColumns = []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Size", Type: "string", JSONPath: ".spec.size"}}
	crd, err := crdgen.CRD("wavekit.dev", def, specSchema(t, `{"properties": {"size": {"type": "string", "default": "1Gi"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if errs := crdschema.Validate(crd); len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	if crd.Name != "postgreses.platform.example.com" || crd.Labels["wavekit.dev/definition"] != def.Name {
		t.Errorf("name %s, labels %v", crd.Name, crd.Labels)
	}
	v := crd.Spec.Versions[0]
	if v.Name != "v1alpha1" || v.Subresources == nil || v.Subresources.Status == nil {
		t.Errorf("version %s, subresources %v: want v1alpha1 with status", v.Name, v.Subresources)
	}
	root := v.Schema.OpenAPIV3Schema
	if string(root.Properties["spec"].Default.Raw) != "{}" {
		t.Errorf("a spec without required fields defaults to {}, so its fields' defaults apply: %v", root.Properties["spec"].Default)
	}
	status := root.Properties["status"]
	for _, field := range []string{"conditions", "inventory", "history", "observedGeneration", "state", "revision"} {
		if _, ok := status.Properties[field]; !ok {
			t.Errorf("status.%s is missing", field)
		}
	}
	var names []string
	for _, c := range v.AdditionalPrinterColumns {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "Ready,State,Revision,Size,Age" {
		t.Errorf("columns %v", names)
	}
}

func TestASpecWithRequiredFieldsIsRequired(t *testing.T) {
	crd, err := crdgen.CRD("wavekit.dev", definition(), specSchema(t, `{"required": ["size"], "properties": {"size": {"type": "string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	root := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	if len(root.Required) != 1 || root.Required[0] != "spec" || root.Properties["spec"].Default != nil {
		t.Errorf("required %v, default %v: want spec required and no default", root.Required, root.Properties["spec"].Default)
	}
}

func TestWhatTheAPIServerWouldRefuseNamesTheDefinitionsField(t *testing.T) {
	def := definition()
	def.Spec.PrinterColumns = []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Size", Type: "strin", JSONPath: ".spec.size"}}
	_, err := crdgen.CRD("wavekit.dev", def, specSchema(t, `{}`))
	if err == nil || !strings.Contains(err.Error(), "spec.printerColumns[0].type") {
		t.Fatalf("error %v, want one naming spec.printerColumns[0].type", err)
	}
	def = definition()
	def.Spec.Names.Categories = []string{"all"}
	def.Spec.Names.ShortNames = []string{"PG"}
	if _, err = crdgen.CRD("wavekit.dev", def, specSchema(t, `{}`)); err == nil || !strings.Contains(err.Error(), "spec.names.shortNames") {
		t.Fatalf("error %v, want one naming spec.names.shortNames", err)
	}
}

func TestAKindClashingWithACRDTheOperatorDidNotWriteIsRefused(t *testing.T) {
	def := definition()
	crd := func(name, group, kind, plural string, labels map[string]string) apiextensionsv1.CustomResourceDefinition {
		return apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, Plural: plural}}}
	}
	ours := map[string]string{"wavekit.dev/definition": def.Name}
	cases := []struct {
		name string
		crds []apiextensionsv1.CustomResourceDefinition
		says string
	}{
		{"none", nil, ""},
		{"its own CRD", []apiextensionsv1.CustomResourceDefinition{crd(def.Name, def.Spec.Group, "Postgres", "postgreses", ours)}, ""},
		{"another group's kind", []apiextensionsv1.CustomResourceDefinition{crd("postgreses.other.example.com", "other.example.com", "Postgres", "postgreses", nil)}, ""},
		{"a CRD of that name someone else wrote", []apiextensionsv1.CustomResourceDefinition{crd(def.Name, def.Spec.Group, "Postgres", "postgreses", nil)}, "did not write it"},
		{"another definition's", []apiextensionsv1.CustomResourceDefinition{crd(def.Name, def.Spec.Group, "Postgres", "postgreses", map[string]string{"wavekit.dev/definition": "x"})}, "did not write it"},
		{"the kind taken", []apiextensionsv1.CustomResourceDefinition{crd("pgs.platform.example.com", def.Spec.Group, "Postgres", "pgs", nil)}, "the kind Postgres of group platform.example.com is taken by the CRD pgs.platform.example.com"},
		{"a short name taken", []apiextensionsv1.CustomResourceDefinition{{ObjectMeta: metav1.ObjectMeta{Name: "pools.platform.example.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: def.Spec.Group, Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Pool", Plural: "pools", ShortNames: []string{"pg"}}}}}, "the short name pg"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := crdgen.Clash("wavekit.dev", def, tc.crds)
			if (tc.says == "") != (got == "") || !strings.Contains(got, tc.says) {
				t.Fatalf("Clash = %q, want %q", got, tc.says)
			}
		})
	}
}

func TestGroupsTheOperatorMayNotServe(t *testing.T) {
	for group, want := range map[string]string{
		"platform.example.com": "", "apps.k8s.io": "Kubernetes' own", "storage.x-k8s.io": "Kubernetes' own",
		"wavekit.dev": "the operator's own", "team.other.org": "not one the operator may serve",
	} {
		err := crdgen.CheckGroup("wavekit.dev", []string{"*.example.com"}, group)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("CheckGroup(%s) = %v, want %q", group, err, want)
		}
	}
	if err := crdgen.CheckGroup("wavekit.dev", nil, "team.other.org"); err != nil {
		t.Errorf("without --definition-groups every group of one's own is allowed: %v", err)
	}
}

func TestTheKindsRolesAggregateIntoKubernetesOwn(t *testing.T) {
	roles := crdgen.ClusterRoles("wavekit.dev", definition())
	if len(roles) != 2 {
		t.Fatalf("%d roles", len(roles))
	}
	view, edit := roles[0], roles[1]
	if view.Name != "wavekit.dev:definition:postgreses.platform.example.com:view" || view.Labels["rbac.authorization.k8s.io/aggregate-to-view"] != "true" {
		t.Errorf("view role %s %v", view.Name, view.Labels)
	}
	if edit.Labels["rbac.authorization.k8s.io/aggregate-to-edit"] != "true" || edit.Labels["rbac.authorization.k8s.io/aggregate-to-admin"] != "true" {
		t.Errorf("edit role %v", edit.Labels)
	}
	for _, r := range edit.Rules {
		if r.APIGroups[0] != "platform.example.com" {
			t.Errorf("rule %v reaches another group", r)
		}
		if strings.HasSuffix(r.Resources[0], "/status") && len(r.Verbs) != 3 {
			t.Errorf("the edit role may write the status, which the operator writes: %v", r)
		}
	}
}
