package fleet

import (
	"encoding/json"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
)

func inputSet(name string, placement bool) *v1alpha1.ComponentSet {
	set := testSet(v1alpha1.Rollout{})
	set.Spec.Inputs = &v1alpha1.Inputs{Name: name}
	set.Spec.Template.Spec.Namespace = "preview-${input.id}"
	set.Spec.Template.Spec.Values = &apiextensionsv1.JSON{Raw: []byte(`{"image":{"tag":"${input.head}"}}`)}
	if placement {
		set.Spec.Placement = &v1alpha1.Placement{}
	}
	return set
}

func prs(ids ...string) []inputs.Input {
	out := make([]inputs.Input, 0, len(ids))
	for _, id := range ids {
		out = append(out, inputs.Input{ID: id, Fields: map[string]any{"id": id, "head": "sha-" + id}})
	}
	return out
}

func TestExpandMakesAMemberPerInputOnTheOperatorsCluster(t *testing.T) {
	set := inputSet("", false)
	members, err := expand(set, nil, prs("12", "13"))
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 2 || members[0].Name != "web-12" || !members[0].Local {
		t.Fatalf("members: %+v", members)
	}
	d, err := desire(set, members[0])
	if err != nil {
		t.Fatal(err)
	}
	if d.Spec.KubeConfig != nil || d.Spec.Namespace != "preview-12" || d.Spec.Name != "web-12" {
		t.Fatalf("spec: kubeConfig %v, namespace %q, name %q", d.Spec.KubeConfig, d.Spec.Namespace, d.Spec.Name)
	}
	var values map[string]any
	if err := json.Unmarshal(d.Spec.Values.Raw, &values); err != nil {
		t.Fatal(err)
	}
	if values["image"].(map[string]any)["tag"] != "sha-12" || values["input"].(map[string]any)["id"] != "12" || values["cluster"] != nil {
		t.Fatalf("values: %v", values)
	}
	other, _ := desire(set, members[1])
	if other.Hash == d.Hash {
		t.Fatal("two inputs gave the same spec hash")
	}
}

func TestExpandCrossesClustersAndInputs(t *testing.T) {
	set := inputSet("", true)
	members, err := expand(set, testClusters("", ""), prs("x", "y", "z"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range members {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "web-a-x,web-a-y,web-a-z,web-b-x,web-b-y,web-b-z" {
		t.Fatalf("names: %v", names)
	}
	d, err := desire(set, members[4])
	if err != nil {
		t.Fatal(err)
	}
	if d.Spec.KubeConfig == nil || d.Spec.KubeConfig.Name != "b" || !strings.Contains(string(d.Spec.Values.Raw), `"cluster":{"annotations":{},"labels":{"wave":""},"name":"b"}`) {
		t.Fatalf("member b-y: kubeConfig %v, values %s", d.Spec.KubeConfig, d.Spec.Values.Raw)
	}
}

func TestExpandRefusesBadNamesTwinsPulledClustersAndTooMany(t *testing.T) {
	for _, tc := range []struct {
		name     string
		set      *v1alpha1.ComponentSet
		clusters []cluster
		want     string
	}{
		{"an invalid name", inputSet("Preview_${input.id}", false), nil, `gives "Preview_12" for input 12, not a valid name`},
		{"two members of one name", inputSet("preview", false), nil, "gives preview for both input 12 and input 13"},
		{"a pulled cluster", inputSet("", true), []cluster{{Name: "edge", Pull: true}}, "cluster edge runs an agent"},
		{"more than maxMembers", func() *v1alpha1.ComponentSet {
			s := inputSet("", true)
			s.Spec.Inputs.MaxMembers = ptrTo(int32(3))
			return s
		}(), testClusters("", ""), "2 inputs on 2 clusters make 4 members, more than spec.inputs.maxMembers (3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := expand(tc.set, tc.clusters, prs("12", "13"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestMembersOfInputsAreOwnedByTheirMemberAnnotation(t *testing.T) {
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Name: "renamed", Annotations: map[string]string{
		testKeys.member: "web-eu-12", testKeys.clusterName: "eu", testKeys.input: "12"}}}
	if memberKey(c, testKeys) != "web-eu-12" {
		t.Fatalf("memberKey: %s", memberKey(c, testKeys))
	}
}

func ptrTo[T any](v T) *T { return &v }
