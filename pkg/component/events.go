package component

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// recordActions emits one event per kind of action a pass took (created,
// updated, replaced, deleted, orphaned), naming the first few objects and
// why, where the action says (a replaced object's immutable fields). A pass that
// wrote nothing emits nothing.
func (r *Reconciler[T]) recordActions(component T, actions []engine.Action) {
	if r.recorder == nil || len(actions) == 0 {
		return
	}
	byVerb := map[engine.ActionVerb][]string{}
	var verbs []engine.ActionVerb
	for _, a := range actions {
		if _, seen := byVerb[a.Verb]; !seen {
			verbs = append(verbs, a.Verb)
		}
		object := a.Object.String()
		if a.Detail != "" {
			object += " (" + a.Detail + ")"
		}
		byVerb[a.Verb] = append(byVerb[a.Verb], object)
	}
	for _, verb := range verbs {
		sort.Strings(byVerb[verb]) // concurrent writes finish in any order
		r.recorder.Eventf(component, nil, "Normal", string(verb), string(verb), "%s", describeObjects(strings.ToLower(string(verb)), byVerb[verb]))
	}
}

// describeObjects names the first few objects, as many as fit in an
// Event: "created 7 objects: a, b, c, d, e, … and 2 more".
func describeObjects(verb string, objects []string) string {
	const shown = 5
	noun := "objects"
	if len(objects) == 1 {
		noun = "object"
	}
	list := append([]string(nil), objects[:min(len(objects), shown)]...)
	list[0] = fmt.Sprintf("%s %d %s: %s", verb, len(objects), noun, list[0])
	return fitProblems(list, ", ", len(objects)-len(list), eventNoteLimit)
}
