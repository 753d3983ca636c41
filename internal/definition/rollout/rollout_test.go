package rollout_test

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/rollout"
)

func threeWavesOfTwo() v1alpha1.DefinitionRollout {
	two := intstr.FromInt32(2)
	return v1alpha1.DefinitionRollout{Waves: []v1alpha1.RolloutWave{{Name: "canary", Count: &two}, {Count: &two}}}
}

// six instances a..f, all Ready at revision running.
func six(running int64) []rollout.Instance {
	var out []rollout.Instance
	for _, name := range []string{"f", "e", "d", "c", "b", "a"} {
		out = append(out, rollout.Instance{ID: "ns/" + name, Running: running, Ready: true})
	}
	return out
}

// desired is the revision each instance runs under st, by name.
func desired(t *testing.T, spec v1alpha1.DefinitionRollout, st v1alpha1.DefinitionRolloutStatus, newest int64, instances []rollout.Instance) string {
	t.Helper()
	waves, err := rollout.Waves(spec, instances)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, i := range sorted(instances) {
		out = append(out, fmt.Sprintf("%s=%d", strings.TrimPrefix(i.ID, "ns/"), rollout.Desired(&st, newest, waves, i)))
	}
	return strings.Join(out, " ")
}

func sorted(in []rollout.Instance) []rollout.Instance {
	out := append([]rollout.Instance{}, in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j].ID < out[i].ID {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// move has every instance run what it should under st, Ready unless
// fails names it (then Failed at that revision).
func move(spec v1alpha1.DefinitionRollout, st v1alpha1.DefinitionRolloutStatus, newest int64, instances []rollout.Instance, fails ...string) []rollout.Instance {
	waves, _ := rollout.Waves(spec, instances)
	out := make([]rollout.Instance, len(instances))
	for n, i := range instances {
		i.Running = rollout.Desired(&st, newest, waves, i)
		i.Ready, i.Failed = true, false
		for _, f := range fails {
			if i.ID == f && i.Running == newest {
				i.Ready, i.Failed, i.Reason, i.Message = false, true, "Error", "the health check of Deployment db failed"
			}
		}
		out[n] = i
	}
	return out
}

func step(t *testing.T, spec v1alpha1.DefinitionRollout, newest int64, st *v1alpha1.DefinitionRolloutStatus, instances []rollout.Instance) v1alpha1.DefinitionRolloutStatus {
	t.Helper()
	next, err := rollout.Step(spec, newest, st, instances)
	if err != nil {
		t.Fatal(err)
	}
	return next
}

// The rollout: six instances in three waves; revision 2 fails its
// health check in the first wave, and the others stay at revision 1.
func TestARolloutHaltsAtTheFirstFailureAndLeavesTheOthersWhereTheyWere(t *testing.T) {
	spec := threeWavesOfTwo()
	instances := six(1)
	st := step(t, spec, 1, nil, instances)
	if st.Phase != v1alpha1.RolloutComplete {
		t.Fatalf("revision 1 with every instance Ready at it: %+v", st)
	}

	st = step(t, spec, 2, &st, instances)
	if st.Phase != v1alpha1.RolloutProgressing || st.Wave != 1 || st.Waves != 3 || st.From != 1 || st.Revision != 2 {
		t.Fatalf("revision 2 starts at the first wave: %+v", st)
	}
	if got := desired(t, spec, st, 2, instances); got != "a=2 b=2 c=1 d=1 e=1 f=1" {
		t.Fatalf("desired %s", got)
	}
	instances = move(spec, st, 2, instances, "ns/b")
	st = step(t, spec, 2, &st, instances)
	if st.Phase != v1alpha1.RolloutHalted || st.Failed == nil || st.Failed.Instance != "ns/b" || st.Wave != 1 {
		t.Fatalf("a failure in the first wave halts the rollout there: %+v", st)
	}
	if !strings.Contains(st.Message, "ns/b failed at revision 2") || st.Failed.Reason != "Error" {
		t.Errorf("the halt says who and why: %q %+v", st.Message, st.Failed)
	}
	if got := desired(t, spec, st, 2, instances); got != "a=2 b=2 c=1 d=1 e=1 f=1" {
		t.Fatalf("halted, nobody else moves: %s", got)
	}
	instances = move(spec, st, 2, instances, "ns/b")
	if st2 := step(t, spec, 2, &st, instances); st2.Phase != v1alpha1.RolloutHalted || st2.Wave != 1 {
		t.Fatalf("still failing, still halted: %+v", st2)
	}

	instances = move(spec, st, 2, instances) // b recovers
	st = step(t, spec, 2, &st, instances)
	if st.Phase != v1alpha1.RolloutProgressing || st.Wave != 2 || st.Failed != nil {
		t.Fatalf("once nobody fails, the next wave moves: %+v", st)
	}
	for st.Phase != v1alpha1.RolloutComplete {
		instances = move(spec, st, 2, instances)
		st = step(t, spec, 2, &st, instances)
	}
	if got := desired(t, spec, st, 2, instances); got != "a=2 b=2 c=2 d=2 e=2 f=2" {
		t.Fatalf("complete: %s", got)
	}
}

// Two instances of the first wave fail, b before a: the rollout goes on
// naming b, the one it halted at (the Event and the alert of the halt
// named b), until b no longer fails; then a.
func TestAHaltedRolloutKeepsNamingTheInstanceItHaltedAt(t *testing.T) {
	spec := threeWavesOfTwo()
	instances := six(1)
	st := step(t, spec, 1, nil, instances)
	st = step(t, spec, 2, &st, instances)
	instances = move(spec, st, 2, instances, "ns/b")
	st = step(t, spec, 2, &st, instances)
	if st.Failed == nil || st.Failed.Instance != "ns/b" {
		t.Fatalf("halted at b: %+v", st)
	}
	instances = move(spec, st, 2, instances, "ns/a", "ns/b")
	st = step(t, spec, 2, &st, instances)
	if st.Phase != v1alpha1.RolloutHalted || st.Failed == nil || st.Failed.Instance != "ns/b" || !strings.Contains(st.Message, "ns/b failed") {
		t.Fatalf("a fails too: the halt still names b, %+v", st)
	}
	instances = move(spec, st, 2, instances, "ns/a")
	st = step(t, spec, 2, &st, instances)
	if st.Phase != v1alpha1.RolloutHalted || st.Failed == nil || st.Failed.Instance != "ns/a" || !strings.Contains(st.Message, "ns/a failed") {
		t.Fatalf("b recovers, a still fails: the halt names a, %+v", st)
	}
}

func TestAWaveMovesOnlyOnceTheOneBeforeIsReady(t *testing.T) {
	spec := threeWavesOfTwo()
	instances := six(1)
	st := step(t, spec, 1, nil, instances)
	st = step(t, spec, 2, &st, instances)
	instances = move(spec, st, 2, instances)
	instances[5].Ready = false // a, moved, not Ready yet
	st = step(t, spec, 2, &st, instances)
	if st.Wave != 1 || !strings.Contains(st.Message, "waits for [ns/a]") {
		t.Fatalf("%+v", st)
	}
}

func TestWavesBySelectorCountAndPercentage(t *testing.T) {
	quarter, one := intstr.FromString("25%"), intstr.FromInt32(1)
	spec := v1alpha1.DefinitionRollout{Waves: []v1alpha1.RolloutWave{
		{Name: "canary", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "canary"}}, Count: &one},
		{Name: "quarter", Count: &quarter},
		{Name: "eu", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}}},
		{Name: "nobody", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "mars"}}},
	}}
	var instances []rollout.Instance
	for n := range 8 {
		i := rollout.Instance{ID: fmt.Sprintf("ns/i%d", n), Labels: map[string]string{}}
		if n%3 == 0 {
			i.Labels["tier"] = "canary"
		}
		if n%2 == 0 {
			i.Labels["region"] = "eu"
		}
		instances = append(instances, i)
	}
	instances = append(instances, rollout.Instance{ID: "ns/pinned", Pinned: 1, Labels: map[string]string{"region": "eu"}})
	waves, err := rollout.Waves(spec, instances)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(waves)
	want := "[{canary [ns/i0]} {quarter [ns/i1 ns/i2]} {eu [ns/i4 ns/i6]} {rest [ns/i3 ns/i5 ns/i7]}]"
	if got != want {
		t.Fatalf("waves %s, want %s", got, want)
	}
}

// The waves docs/definitions.md describes: the instances no wave takes
// make a last wave, rest; without waves, one wave, all; a wave that takes
// nobody, rest included, is left out.
func TestTheLastWaveIsRestAndWithoutWavesAll(t *testing.T) {
	one, all := intstr.FromInt32(1), intstr.FromString("100%")
	for _, c := range []struct {
		waves []v1alpha1.RolloutWave
		want  []string
	}{
		{[]v1alpha1.RolloutWave{{Name: "canary", Count: &one}}, []string{"canary", "rest"}},
		{nil, []string{"all"}},
		{[]v1alpha1.RolloutWave{{Count: &one}, {Name: "others", Count: &all}}, []string{"wave-1", "others"}},
	} {
		st := step(t, v1alpha1.DefinitionRollout{Waves: c.waves}, 1, nil, six(0))
		if st.Waves != int32(len(c.want)) || fmt.Sprint(st.WaveNames) != fmt.Sprint(c.want) {
			t.Errorf("waves %v: %d %v, want %v", c.waves, st.Waves, st.WaveNames, c.want)
		}
	}
}

func TestPinnedPausedAndNewInstances(t *testing.T) {
	spec := threeWavesOfTwo()
	instances := six(1)
	instances = append(instances, rollout.Instance{ID: "ns/pinned", Running: 1, Pinned: 1, Ready: true})
	st := step(t, spec, 1, nil, instances)
	st = step(t, spec, 2, &st, instances)
	newcomer := rollout.Instance{ID: "ns/new"}
	waves, _ := rollout.Waves(spec, append(instances, newcomer))
	if got := rollout.Desired(&st, 2, waves, newcomer); got != 1 {
		t.Errorf("a new instance during a rollout gets the revision before it: %d", got)
	}
	if got := rollout.Desired(&st, 2, waves, instances[6]); got != 1 {
		t.Errorf("a pinned instance keeps its revision: %d", got)
	}
	if got := rollout.Desired(nil, 2, waves, newcomer); got != 2 {
		t.Errorf("without a rollout, the newest: %d", got)
	}

	spec.Paused = true
	st = step(t, spec, 2, &st, instances)
	if st.Phase != v1alpha1.RolloutPaused {
		t.Fatalf("%+v", st)
	}
	if got := desired(t, spec, st, 2, instances[:6]); got != "a=1 b=1 c=1 d=1 e=1 f=1" {
		t.Errorf("paused, nobody moves: %s", got)
	}
	spec.Paused = false
	st = step(t, spec, 2, &st, instances)
	if got := desired(t, spec, st, 2, instances[:6]); st.Phase != v1alpha1.RolloutProgressing || got != "a=2 b=2 c=1 d=1 e=1 f=1" {
		t.Errorf("resumed: %+v %s", st, got)
	}
}

func TestARevisionDuringAHaltedRolloutStartsFromTheRevisionBeforeIt(t *testing.T) {
	spec := threeWavesOfTwo()
	instances := six(1)
	st := step(t, spec, 1, nil, instances)
	st = step(t, spec, 2, &st, instances)
	instances = move(spec, st, 2, instances, "ns/a")
	st = step(t, spec, 2, &st, instances)
	st = step(t, spec, 3, &st, instances)
	if st.Revision != 3 || st.From != 1 || st.Phase != v1alpha1.RolloutProgressing || st.Wave != 1 {
		t.Fatalf("%+v", st)
	}
	if got := desired(t, spec, st, 3, instances); got != "a=3 b=3 c=1 d=1 e=1 f=1" {
		t.Fatalf("%s", got)
	}
}
