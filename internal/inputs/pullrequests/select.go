package pullrequests

import (
	"slices"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
)

// selected are the pulls that carry every label of spec and target its
// branch, as inputs.
func selected(pulls []pull, spec *v1alpha1.PullRequestsInput) []inputs.Input {
	out := make([]inputs.Input, 0, len(pulls))
	for _, p := range pulls {
		if spec.TargetBranch != "" && p.TargetBranch != spec.TargetBranch {
			continue
		}
		if !hasAll(p.Labels, spec.Labels) {
			continue
		}
		labels := make([]any, 0, len(p.Labels))
		for _, l := range p.Labels {
			labels = append(labels, l)
		}
		id := itoa(p.Number)
		out = append(out, inputs.Input{ID: id, Fields: map[string]any{
			"id": id, "number": p.Number, "branch": p.Branch, "targetBranch": p.TargetBranch, "head": p.Head,
			"title": p.Title, "labels": labels, "author": p.Author, "url": p.URL}})
	}
	return out
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
