package diffview

import (
	"fmt"
	"io"
	"strings"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// PlanReport is the machine-readable form of a preview (diff -o json|yaml).
// docs/schemas/diff.schema.json describes it; keep the two in step.
type PlanReport struct {
	Release string       `json:"release"`
	Changes bool         `json:"changes"`
	Summary planSummary  `json:"summary"`
	Steps   []planStepJS `json:"steps"`
}

type planSummary struct {
	Create    int `json:"create"`
	Update    int `json:"update"`
	Delete    int `json:"delete"`
	Orphan    int `json:"orphan"`
	Purge     int `json:"purge"`
	Unchanged int `json:"unchanged"`
}

type planStepJS struct {
	Group  string     `json:"group"`
	Wave   int16      `json:"wave"`
	Stage  string     `json:"stage,omitempty"`
	Action string     `json:"action"`
	Object objectJSON `json:"object"`
	Reason string     `json:"reason,omitempty"`
	// Diff is the unified diff of the live object and the dry-run result,
	// Secret values masked.
	Diff string `json:"diff,omitempty"`
}

type objectJSON struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// CheckPlanFormat checks the -o flag of diff and diff component.
func CheckPlanFormat(format string) error {
	if format != "text" && format != string(session.OutputJSON) && format != string(session.OutputYAML) {
		return fmt.Errorf("--output %s: unknown format (use text, yaml or json)", format)
	}
	return nil
}

// WritePlan prints the preview of subject (a release or a Component) in
// format; a preview that changes something is an ExitError with code 1, as
// kubectl diff exits.
func WritePlan(out io.Writer, format, subject string, preview engine.Preview, showSecrets bool) error {
	steps, err := PlanSteps(preview, showSecrets)
	if err != nil {
		return err
	}
	if format == "text" {
		PrintPlan(out, steps)
	} else if err := session.WriteStructured(out, format, NewPlanReport(subject, steps)); err != nil {
		return err
	}
	if summarizePlan(steps).changes() {
		return &session.ExitError{Code: 1}
	}
	return nil
}

// PlannedStep is a preview step with its diff.
type PlannedStep struct {
	engine.PreviewStep
	diff objectDiff
}

// PlanSteps computes the diff of every step that would write or delete.
func PlanSteps(preview engine.Preview, showSecrets bool) ([]PlannedStep, error) {
	steps := make([]PlannedStep, len(preview.Steps))
	for i, s := range preview.Steps {
		steps[i].PreviewStep = s
		steps[i].Reason = stepReason(s, showSecrets)
		if s.Change == nil {
			continue
		}
		diffs, err := objectDiffs([]engine.Change{*s.Change}, showSecrets)
		if err != nil {
			return nil, err
		}
		steps[i].diff = diffs[0]
		if diffs[0].action == engine.ActionUnchanged {
			steps[i].Action = engine.ActionUnchanged // the dry run changes nothing
		}
	}
	return steps, nil
}

// summarizePlan counts what the steps would do.
func summarizePlan(steps []PlannedStep) planSummary {
	var sum planSummary
	for _, s := range steps {
		switch s.Action {
		case engine.ActionCreate:
			sum.Create++
		case engine.ActionUpdate, engine.ActionReplace:
			sum.Update++
		case engine.ActionDelete, engine.ActionPrune:
			sum.Delete++
		case engine.ActionOrphan:
			sum.Orphan++
		case engine.ActionPurge:
			sum.Purge++
		case engine.ActionUnchanged:
			sum.Unchanged++
		}
	}
	return sum
}

// changes reports whether the summary holds a write or a delete.
func (s planSummary) changes() bool {
	return s.Create+s.Update+s.Delete+s.Orphan+s.Purge > 0
}

// NewPlanReport is the -o json|yaml report of the steps of release.
func NewPlanReport(release string, steps []PlannedStep) PlanReport {
	r := PlanReport{Release: release, Summary: summarizePlan(steps), Steps: make([]planStepJS, len(steps))}
	r.Changes = r.Summary.changes()
	for i, s := range steps {
		k := s.Object
		r.Steps[i] = planStepJS{Group: string(s.Group), Wave: s.Wave, Stage: s.Stage, Action: string(s.Action), Reason: s.Reason,
			Object: objectJSON{Group: k.Group, Kind: k.Kind, Namespace: k.Namespace, Name: k.Name}, Diff: s.diff.text}
	}
	return r
}

// PrintPlan prints the steps that change something, under a line for each
// group (wave and stage, the wait for a wave that changed, its purges, the
// prune), then the summary. It reports whether anything would change.
func PrintPlan(out io.Writer, steps []PlannedStep) bool {
	sum := summarizePlan(steps)
	if sum.changes() {
		waves := changedWaves(steps)
		for _, g := range groupsOf(steps) {
			printGroup(out, g, waves)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "Summary: %d to create, %d to update, %d to delete, %d unchanged", sum.Create, sum.Update, sum.Delete, sum.Unchanged)
	if sum.Orphan > 0 {
		fmt.Fprintf(out, ", %d to orphan", sum.Orphan)
	}
	if sum.Purge > 0 {
		fmt.Fprintf(out, ", %d to purge", sum.Purge)
	}
	fmt.Fprintln(out)
	return sum.changes()
}

// groupsOf splits the steps into the plan's groups: runs of one group kind,
// wave and stage.
func groupsOf(steps []PlannedStep) [][]PlannedStep {
	var groups [][]PlannedStep
	for i, s := range steps {
		prev := i - 1
		if prev < 0 || s.Group != steps[prev].Group || s.Wave != steps[prev].Wave || s.Stage != steps[prev].Stage {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], s)
	}
	return groups
}

// changedWaves are the apply orders of the waves with a step that changes
// something.
func changedWaves(steps []PlannedStep) map[int16]bool {
	waves := map[int16]bool{}
	for _, s := range steps {
		if s.Group == engine.GroupApply && changes(s) {
			waves[s.Wave] = true
		}
	}
	return waves
}

// changes tells whether a step writes or deletes.
func changes(s PlannedStep) bool {
	switch s.Action {
	case engine.ActionUnchanged, engine.ActionReady, engine.ActionLeave:
		return false
	}
	return true
}

// printGroup prints the steps of a group that change something under its
// title; the wait of a wave that changes says how many objects it waits for.
func printGroup(out io.Writer, g []PlannedStep, changedWaves map[int16]bool) {
	first := g[0]
	if first.Group == engine.GroupWait {
		if changedWaves[first.Wave] {
			fmt.Fprintf(out, "wave %d, ready: wait for %s to be ready", first.Wave, plural(len(g), "object"))
			if first.Reason != "" {
				fmt.Fprintf(out, " (%s)", first.Reason)
			}
			fmt.Fprintln(out)
		}
		return
	}
	var changed []PlannedStep
	for _, s := range g {
		if changes(s) {
			changed = append(changed, s)
		}
	}
	if len(changed) == 0 {
		return
	}
	fmt.Fprintln(out, groupTitle(first, len(g)-len(changed)))
	for _, s := range changed {
		fmt.Fprintf(out, "%s %s %s", symbol(s.Action), s.Action, s.Object)
		if s.Reason != "" {
			fmt.Fprintf(out, " (%s)", s.Reason)
		}
		fmt.Fprintln(out)
		fmt.Fprint(out, s.diff.text)
	}
}

// groupTitle words a group: "wave 0, workloads (1 unchanged):",
// "wave 1, purge:", "prune, delete-order 0, configuration:".
func groupTitle(s PlannedStep, unchanged int) string {
	var parts []string
	switch s.Group {
	case engine.GroupPrune:
		parts = []string{string(s.Group), fmt.Sprintf("delete-order %d", s.Wave)}
	default:
		parts = []string{fmt.Sprintf("wave %d", s.Wave)}
		if s.Group != engine.GroupApply {
			parts = append(parts, string(s.Group))
		}
	}
	if s.Stage != "" {
		parts = append(parts, s.Stage)
	}
	title := strings.Join(parts, ", ")
	if unchanged > 0 {
		title += fmt.Sprintf(" (%d unchanged)", unchanged)
	}
	return title + ":"
}

// plural words a count: "1 object", "3 objects".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
