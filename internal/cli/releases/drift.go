package releases

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Keys of the release Secret for drift.
const (
	keyDrift   = "drift"   // JSON of manifests.DriftSettings, as the last apply with drift flags gave them
	keyDrifted = "drifted" // JSON of []driftedObject: what the last apply found drifted and left
)

// driftOptions are apply's drift flags. Given, they replace what the
// release recorded; not given, the recorded settings stay.
type driftOptions struct {
	mode    string
	ignore  []string
	changed func(flag string) bool
}

func (o *driftOptions) addFlags(cmd *cobra.Command) {
	o.changed = cmd.Flags().Changed
	cmd.Flags().StringVar(&o.mode, "drift-mode", "",
		"what a re-apply does with objects others changed: Correct (apply again, the default), Warn (report, change nothing) or Disabled (do not look); kept in the release")
	cmd.Flags().StringArrayVar(&o.ignore, "drift-ignore", nil,
		"fields left to other writers, [KIND[.GROUP][/NAME]=]POINTER[,POINTER...] with JSON pointers, e.g. Deployment.apps/web=/spec/replicas "+
			"(NAME is a regular expression; repeat the flag for more rules; kept in the release, --drift-ignore='' clears them)")
}

// settings returns the drift settings for the next apply: those recorded,
// with what the flags given replace.
func (o *driftOptions) settings(recorded manifests.DriftSettings) (manifests.DriftSettings, error) {
	out := recorded
	if o.changed("drift-mode") {
		mode, err := manifests.ParseDriftMode(o.mode)
		if err != nil {
			return out, fmt.Errorf("--drift-mode: %w", err)
		}
		out.Mode = mode
		if mode == manifests.DriftCorrect {
			out.Mode = "" // the default
		}
	}
	if o.changed("drift-ignore") {
		out.Ignore = nil
		for _, text := range o.ignore {
			if text == "" {
				continue
			}
			rule, err := parseIgnoreRule(text)
			if err != nil {
				return out, fmt.Errorf("--drift-ignore %q: %w", text, err)
			}
			out.Ignore = append(out.Ignore, rule)
		}
	}
	return out, nil
}

// parseIgnoreRule reads [KIND[.GROUP][/NAME]=]POINTER[,POINTER...].
func parseIgnoreRule(text string) (manifests.IgnoreRule, error) {
	var rule manifests.IgnoreRule
	paths := text
	if !strings.HasPrefix(text, "/") {
		target, rest, ok := strings.Cut(text, "=")
		if !ok {
			return rule, fmt.Errorf("give JSON pointers (starting with /), or a target before them: KIND[.GROUP][/NAME]=POINTER")
		}
		kindGroup, name, _ := strings.Cut(target, "/")
		kind, group, _ := strings.Cut(kindGroup, ".")
		if kind == "" {
			return rule, fmt.Errorf("the target %q names no kind", target)
		}
		rule.Target = &manifests.ObjectSelector{Kind: kind, Group: group, Name: name}
		paths = rest
	}
	for _, p := range strings.Split(paths, ",") {
		p = strings.TrimSpace(p)
		if _, err := manifests.ParsePointer(p); err != nil {
			return rule, err
		}
		rule.Paths = append(rule.Paths, p)
	}
	return rule, nil
}

// driftedObject is an object the last apply found drifted and left
// (drift mode Warn), with the JSON pointers of the fields that differ.
type driftedObject struct {
	Object string   `json:"object"`
	Paths  []string `json:"paths"`
}

func driftedObjects(drifts []engine.Drift) []driftedObject {
	var out []driftedObject
	for _, d := range drifts {
		out = append(out, driftedObject{Object: d.Object.String(), Paths: d.Paths})
	}
	return out
}

// sameJSON tells whether a and b encode alike.
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// printDrifted lists what the last apply found drifted, one object a line.
func printDrifted(out io.Writer, drifted []driftedObject) {
	if len(drifted) == 0 {
		return
	}
	fmt.Fprintln(out, "\nDrifted at the last apply (left as they are, drift mode Warn):")
	for _, d := range drifted {
		fmt.Fprintf(out, "  %s: %s\n", d.Object, strings.Join(d.Paths, ", "))
	}
}

// encodeDrift stores the release's drift settings and findings, when it has any.
func encodeDrift(data map[string][]byte, rel *release) error {
	if !sameJSON(rel.Drift, manifests.DriftSettings{}) {
		encoded, err := json.Marshal(rel.Drift)
		if err != nil {
			return fmt.Errorf("encoding the drift settings of release %s: %w", rel, err)
		}
		data[keyDrift] = encoded
	}
	if len(rel.Drifted) > 0 {
		encoded, err := json.Marshal(rel.Drifted)
		if err != nil {
			return fmt.Errorf("encoding the drift of release %s: %w", rel, err)
		}
		data[keyDrifted] = encoded
	}
	return nil
}

// decodeDrift reads what encodeDrift stored.
func decodeDrift(data map[string][]byte, rel *release) error {
	if encoded := data[keyDrift]; len(encoded) > 0 {
		if err := json.Unmarshal(encoded, &rel.Drift); err != nil {
			return fmt.Errorf("reading the drift settings: %w", err)
		}
	}
	if encoded := data[keyDrifted]; len(encoded) > 0 {
		if err := json.Unmarshal(encoded, &rel.Drifted); err != nil {
			return fmt.Errorf("reading the drift found: %w", err)
		}
	}
	return nil
}

// noteDrift keeps what a pass found drifted and left, and warns of the
// drift that is new to this apply: once per apply, not once per pass.
func (a *releaseApply) noteDrift(res engine.Result) {
	if len(res.Drifted) == 0 && !res.Done {
		return // the pass did not compare every object
	}
	a.drifted = driftedObjects(res.Drifted)
	for _, d := range res.Drifted {
		if d.New {
			fmt.Fprintf(a.stderr, "warning: %s drifted and is left as it is (drift mode Warn): %s\n", d.Object, strings.Join(d.Paths, ", "))
		}
	}
}

// driftChanged tells whether the release's drift settings or findings
// differ from what it recorded.
func (a *releaseApply) driftChanged() bool {
	return !sameJSON(a.drift, a.rel.Drift) || !sameJSON(a.drifted, a.rel.Drifted)
}
