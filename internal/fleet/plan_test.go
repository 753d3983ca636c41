package fleet

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

var testKeys = keysFor("wavekit.dev")

func testSet(rollout v1alpha1.Rollout) *v1alpha1.ComponentSet {
	return &v1alpha1.ComponentSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "web", Generation: 2},
		Spec: v1alpha1.ComponentSetSpec{
			Template: v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "web"}},
			Rollout:  rollout,
		},
	}
}

func testClusters(wave ...string) []cluster {
	var out []cluster
	for i, w := range wave {
		out = append(out, cluster{Name: string(rune('a' + i)), Labels: map[string]string{"wave": w}})
	}
	return out
}

// component is the Component of cluster c at the template of set (or an
// older one when old), in state ready / failed / unreachable / pending.
func testComponent(t *testing.T, set *v1alpha1.ComponentSet, c cluster, wave int, old bool, status string) *v1alpha1.Component {
	t.Helper()
	d, err := desire(set, c)
	if err != nil {
		t.Fatal(err)
	}
	hash := d.Hash
	if old {
		hash = "old"
	}
	comp := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Name: componentName(set.Name, c.Name), Generation: 3,
		Annotations: map[string]string{testKeys.specHash: hash, testKeys.wave: itoa(int64(wave)), testKeys.clusterName: c.Name}}}
	comp.Status.ObservedGeneration = 3
	ready := metav1.Condition{Type: component.ConditionReady, Status: metav1.ConditionTrue, Reason: "Ready", ObservedGeneration: 3}
	switch status {
	case "failed":
		ready.Status, ready.Reason = metav1.ConditionFalse, "Error"
		comp.Status.Attempt = &component.Attempt{Generation: 3, Result: component.ResultFailed, Failures: 1, Message: "health check failed"}
	case "unreachable": // read by its reason: the message has no signature
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, component.ReasonTargetUnreachable, `Patch "https://127.0.0.1:1/api/v1/namespaces/a/configmaps/x": EOF`
	case "retrying-with-an-unreachable-message": // the reason decides, not the text
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, component.ReasonRetrying, `Get "https://127.0.0.1:1/api": dial tcp 127.0.0.1:1: connect: connection refused`
	case "pending":
		ready.Status, ready.Reason = metav1.ConditionFalse, "Processing"
	}
	comp.Status.Conditions = []metav1.Condition{ready}
	return comp
}

func TestMakePlanGoesWaveByWave(t *testing.T) {
	rollout := v1alpha1.Rollout{WaveLabel: "wave", WaveOrder: []string{"canary", "eu"}}
	set := testSet(rollout)
	clusters := testClusters("canary", "eu", "eu") // a, b, c
	cases := []struct {
		name       string
		components map[string][3]string // cluster -> {old|new, status, wave}
		writes     string
		wave       int
		failed     string
	}{
		{name: "install: only the first wave is created", components: nil, writes: "a", wave: 1},
		{name: "canary updating: the later wave waits",
			components: map[string][3]string{"a": {"new", "pending"}, "b": {"old", "ready"}, "c": {"old", "ready"}}, writes: "", wave: 1},
		{name: "canary Ready: the next wave is written",
			components: map[string][3]string{"a": {"new", "ready"}, "b": {"old", "ready"}, "c": {"old", "ready"}}, writes: "b,c", wave: 2},
		{name: "canary failed: the rollout stops there",
			components: map[string][3]string{"a": {"new", "failed"}, "b": {"old", "ready"}, "c": {"old", "ready"}}, writes: "", wave: 1, failed: "a"},
		{name: "canary unreachable within the budget: the next wave goes on",
			components: map[string][3]string{"a": {"new", "unreachable"}, "b": {"old", "ready"}, "c": {"old", "ready"}}, writes: "b,c", wave: 2},
		{name: "an unreachable cluster at the old template is still written",
			components: map[string][3]string{"a": {"old", "unreachable"}, "b": {"old", "ready"}, "c": {"old", "ready"}}, writes: "a,b,c", wave: 2},
		{name: "done", components: map[string][3]string{"a": {"new", "ready"}, "b": {"new", "ready"}, "c": {"new", "ready"}}, writes: "", wave: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			owned := map[string]*v1alpha1.Component{}
			for i, c := range clusters {
				if spec, ok := tc.components[c.Name]; ok {
					owned[c.Name] = testComponent(t, set, c, min(i+1, 2), spec[0] == "old", spec[1])
				}
			}
			p, err := makePlan(set, clusters, owned, testKeys)
			if err != nil {
				t.Fatal(err)
			}
			var writes []string
			for _, w := range p.Writes {
				writes = append(writes, w.Member.Cluster.Name)
			}
			if got := strings.Join(writes, ","); got != tc.writes {
				t.Errorf("writes %q, want %q", got, tc.writes)
			}
			if p.Wave != tc.wave || p.Waves != 2 {
				t.Errorf("wave %d of %d, want %d of 2", p.Wave, p.Waves, tc.wave)
			}
			failed := ""
			if p.FailedAt != nil {
				failed = p.FailedAt.Cluster.Name
			}
			if failed != tc.failed {
				t.Errorf("failed at %q, want %q", failed, tc.failed)
			}
			if len(p.Leaving) != 0 {
				t.Errorf("leaving %d, want none", len(p.Leaving))
			}
		})
	}
}

func TestMakePlanRemovesOnlyWhatLeft(t *testing.T) {
	set := testSet(v1alpha1.Rollout{})
	clusters := testClusters("", "")
	owned := map[string]*v1alpha1.Component{}
	for _, c := range append(clusters, cluster{Name: "gone"}) {
		owned[c.Name] = testComponent(t, set, c, 1, false, "ready")
	}
	p, err := makePlan(set, clusters, owned, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Leaving) != 1 || p.Leaving[0].Annotations[testKeys.clusterName] != "gone" {
		t.Errorf("leaving %v, want the Component of gone only", p.Leaving)
	}
}

func TestAssignWaves(t *testing.T) {
	clusters := testClusters("us", "canary", "eu", "", "mars") // a..e
	three := intstr.FromInt32(2)
	half := intstr.FromString("50%")
	cases := []struct {
		rollout v1alpha1.Rollout
		want    string
	}{
		{v1alpha1.Rollout{}, "abcde"},
		{v1alpha1.Rollout{WaveLabel: "wave", WaveOrder: []string{"canary", "eu", "us"}}, "b|c|a|de"},
		{v1alpha1.Rollout{MaxUnavailable: &three}, "ab|cd|e"},
		{v1alpha1.Rollout{MaxUnavailable: &half}, "ab|cd|e"},
	}
	for _, tc := range cases {
		waves, err := assignWaves(tc.rollout, clusters)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, w := range waves {
			var names string
			for _, c := range w {
				names += c.Name
			}
			parts = append(parts, names)
		}
		if got := strings.Join(parts, "|"); got != tc.want {
			t.Errorf("%+v: waves %s, want %s", tc.rollout, got, tc.want)
		}
	}
}

func TestComponentNameIsBounded(t *testing.T) {
	long := strings.Repeat("x", 80)
	a, b := componentName("set", long+"a"), componentName("set", long+"b")
	if len(a) > maxComponentName || a == b {
		t.Errorf("names %q and %q: want at most %d characters and distinct", a, b, maxComponentName)
	}
	if got := componentName("web", "east"); got != "web-east" {
		t.Errorf("componentName = %q, want web-east", got)
	}
}

func TestDesireGivesTheClusterAndHidesKubernetesAnnotations(t *testing.T) {
	set := testSet(v1alpha1.Rollout{})
	d, err := desire(set, cluster{Name: "east", Labels: map[string]string{"region": "eu"},
		Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{secret}", "team": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	values := string(d.Spec.Values.Raw)
	if !strings.Contains(values, `"region":"eu"`) || !strings.Contains(values, `"team":"a"`) || strings.Contains(values, "secret") {
		t.Errorf("values %s: want the labels and the team annotation, not kubectl's", values)
	}
	if d.Spec.KubeConfig.Name != "east" || d.Spec.KubeConfig.Key != "value" || d.Spec.Name != "web" {
		t.Errorf("spec %+v: want kubeConfig east/value and name web", d.Spec)
	}
}

func TestClusterLinesAreBounded(t *testing.T) {
	var members []*member
	for i := range 70 {
		members = append(members, &member{Cluster: cluster{Name: itoa(int64(i))}, Wave: 1, State: stateReady})
	}
	members[60].State, members[60].Message = stateFailed, strings.Repeat("long ", 100)
	lines := clusterLines(members, nil, nil)
	if len(lines) != maxClusterLines+1 || lines[maxClusterLines] != "… and 20 more" {
		t.Fatalf("%d lines ending %q, want %d and a count", len(lines), lines[len(lines)-1], maxClusterLines+1)
	}
	if !strings.HasPrefix(lines[0], "60 (wave 1): Failed") || len(lines[0]) > maxLineLength {
		t.Errorf("first line %q: want the failed cluster first, bounded", lines[0])
	}
}

func TestDesireWithoutClusterValues(t *testing.T) {
	set := testSet(v1alpha1.Rollout{})
	set.Spec.ClusterValuesKey = v1alpha1.NoClusterValues
	d, err := desire(set, cluster{Name: "east", Labels: map[string]string{"region": "eu"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Spec.Values != nil {
		t.Errorf("values %s, want the template's (none)", d.Spec.Values.Raw)
	}
	set.Spec.ClusterValuesKey = "where"
	if d, err = desire(set, cluster{Name: "east"}); err != nil || !strings.Contains(string(d.Spec.Values.Raw), `"where":{`) {
		t.Errorf("values %v (%v), want the cluster under where", d.Spec.Values, err)
	}
}

func TestCAPIClustersNeedTheirKubeconfigSecretAndLeaveWhenDeleted(t *testing.T) {
	meta := func(name string, labels map[string]string) metav1.PartialObjectMetadata {
		return metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	}
	clusters := []metav1.PartialObjectMetadata{
		meta("east", map[string]string{"region": "eu"}),
		meta("west", nil),  // provisioning: no Secret yet
		meta("north", nil), // a Secret of another name
		meta("south", nil), // being deleted
	}
	deleted := metav1.Now()
	clusters[3].DeletionTimestamp = &deleted
	secrets := []metav1.PartialObjectMetadata{
		meta("east-kubeconfig", map[string]string{capiClusterNameLabel: "east"}),
		meta("north-ca", map[string]string{capiClusterNameLabel: "north"}),
		meta("south-kubeconfig", map[string]string{capiClusterNameLabel: "south"}),
	}
	got := capiClusters(clusters, secrets)
	if len(got) != 1 || got[0].Name != "east" || got[0].Secret != "east-kubeconfig" || got[0].Key != "value" || got[0].Labels["region"] != "eu" {
		t.Fatalf("clusters %+v, want east with east-kubeconfig/value and its labels", got)
	}
	d, err := desire(testSet(v1alpha1.Rollout{}), got[0])
	if err != nil || d.Spec.KubeConfig.Name != "east-kubeconfig" {
		t.Errorf("kubeConfig %+v (%v), want east-kubeconfig", d.Spec.KubeConfig, err)
	}
}

func TestAPausedSetSaysWhatItWouldDo(t *testing.T) {
	set := testSet(v1alpha1.Rollout{WaveLabel: "wave", WaveOrder: []string{"canary", "eu"}})
	set.Spec.Paused = true
	clusters := testClusters("canary", "eu", "eu", "eu") // a, b, c, d
	owned := map[string]*v1alpha1.Component{
		"a": testComponent(t, set, clusters[0], 1, true, "ready"),
		"b": testComponent(t, set, clusters[1], 2, true, "ready"),
		"c": testComponent(t, set, clusters[2], 2, true, "unreachable"),
	}
	p, err := makePlan(set, clusters, owned, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a": "Paused: would write the new template",
		"b": "Paused: would write the new template once the earlier waves are Ready",
		"c": "Unreachable: ",
		"d": "Paused: would create its Component once the earlier waves are Ready",
	}
	for _, m := range p.Members {
		if got := string(m.State) + ": " + m.Message; !strings.HasPrefix(got, want[m.Cluster.Name]) {
			t.Errorf("cluster %s: %q, want %q", m.Cluster.Name, got, want[m.Cluster.Name])
		}
	}
	var status v1alpha1.ComponentSetStatus
	summarize(set, p, nil, &status)
	if status.Rollout.Waiting != 3 || status.Rollout.Updating != 0 {
		t.Errorf("rollout %+v: want the paused clusters waiting, none updating", status.Rollout)
	}
	ready := status.Conditions[0]
	if !strings.Contains(ready.Message, "writing nothing: it would write the new template to 2 Components, create 1 and remove 0") {
		t.Errorf("Ready message %q", ready.Message)
	}
}
