package fleet

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

func TestSetAlertsTellWhatTheStatusComesToSay(t *testing.T) {
	status := func(generation int64, wave, unreachable int32, reason, message string) *v1alpha1.ComponentSetStatus {
		s := &v1alpha1.ComponentSetStatus{ObservedGeneration: generation,
			Rollout: v1alpha1.RolloutStatus{Wave: wave, Waves: 3, Clusters: 6, Unreachable: unreachable}}
		if reason != "" {
			s.Conditions = []metav1.Condition{{Type: component.ConditionReady, Reason: reason, Message: message}}
		}
		return s
	}
	failedAt := "the rollout stopped at wave 2 of 3: cluster eu-1 failed (Component web-eu-1): Timeout; the clusters of later waves keep their template"
	for _, tc := range []struct {
		name          string
		before, after *v1alpha1.ComponentSetStatus
		unreachable   []string
		want          []string
	}{
		{"nothing new", status(1, 2, 0, ReasonProgressing, "wave 2 of 3"), status(1, 2, 0, ReasonProgressing, "wave 2 of 3"), nil, nil},
		{"a wave done", status(1, 1, 0, ReasonProgressing, ""), status(1, 2, 0, ReasonProgressing, ""), nil,
			[]string{"WaveDone Progressing: wave 1 of 3 done: its clusters are Ready at the template; the rollout goes on to wave 2"}},
		{"two waves done in one pass", status(1, 1, 0, ReasonProgressing, ""), status(1, 3, 0, ReasonProgressing, ""), nil,
			[]string{"WaveDone Progressing: waves 1 to 2 of 3 done: its clusters are Ready at the template; the rollout goes on to wave 3"}},
		{"the last wave done", status(1, 3, 0, ReasonProgressing, ""), status(1, 3, 0, ReasonReady, "6 of 6 clusters Ready"), nil,
			[]string{"WaveDone Ready: wave 3 of 3 done: 6 of 6 clusters Ready"}},
		{"Ready again: nothing new", status(1, 3, 0, ReasonReady, "6 of 6 clusters Ready"), status(1, 3, 0, ReasonReady, "6 of 6 clusters Ready"), nil, nil},
		{"a new template starts at wave 1: nothing done", status(1, 3, 0, ReasonReady, ""), status(2, 1, 0, ReasonProgressing, ""), nil, nil},
		{"the first pass: no wave was done", &v1alpha1.ComponentSetStatus{}, status(1, 1, 0, ReasonProgressing, ""), nil, nil},
		{"held at a failed cluster", status(1, 2, 0, ReasonProgressing, ""), status(1, 2, 0, ReasonFailed, failedAt), nil,
			[]string{"WaveHeld Failed: " + failedAt}},
		{"held as before: nothing new", status(1, 2, 0, ReasonFailed, failedAt), status(1, 2, 0, ReasonFailed, failedAt), nil, nil},
		{"a cluster that stops answering", status(1, 2, 0, ReasonProgressing, ""), status(1, 2, 1, ReasonProgressing, ""), []string{"us-2"},
			[]string{"ClusterUnreachable TargetUnreachable: 1 cluster of 6 does not answer: us-2; nothing is deleted for it, and the rollout goes on past at most 1 unreachable cluster (spec.rollout.maxUnavailable's default)"}},
		{"as many unreachable as before: nothing new", status(1, 2, 1, ReasonProgressing, ""), status(1, 2, 1, ReasonProgressing, ""), []string{"us-2"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := &v1alpha1.ComponentSet{Status: *tc.after}
			var got []string
			for _, a := range setAlerts(set, tc.before, tc.unreachable) {
				got = append(got, string(a.kind)+" "+a.reason+": "+a.message)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("setAlerts =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
