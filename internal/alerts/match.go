package alerts

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// selects tells whether alert sends e: e is about an object of the Alert's
// own namespace that one of its event sources names, at its severity or
// above, of one of its events (any when it lists none), and its message
// matches an expression of the inclusion list (when there is one) and
// none of the exclusion list. An expression that does not compile is an
// error, and the Alert sends nothing until it is mended.
func selects(alert *v1alpha1.Alert, e notify.Event) (bool, error) {
	s := alert.Spec
	switch {
	case alert.Spec.Suspend, e.Object.Namespace != alert.Namespace:
		return false, nil
	case s.EventSeverity == v1alpha1.SeverityError && e.Severity != notify.SeverityError:
		return false, nil
	case len(s.Events) > 0 && !slices.Contains(s.Events, v1alpha1.EventKind(e.Kind)):
		return false, nil
	case !slices.ContainsFunc(s.EventSources, func(src v1alpha1.EventSource) bool { return sourceSelects(src, e) }):
		return false, nil
	}
	included, err := anyMatches(s.InclusionList, e.Message, "inclusionList")
	if err != nil || (len(s.InclusionList) > 0 && !included) {
		return false, err
	}
	excluded, err := anyMatches(s.ExclusionList, e.Message, "exclusionList")
	return !excluded && err == nil, err
}

// sourceSelects tells whether src names e's object: one of the reference
// operator's kinds, or of the group of src's apiVersion (a kind a
// ComponentDefinition defines), by name (or * or none) and labels.
func sourceSelects(src v1alpha1.EventSource, e notify.Event) bool {
	group, _, _ := strings.Cut(e.Object.APIVersion, "/")
	want := v1alpha1.GroupVersion.Group
	if src.APIVersion != "" {
		want, _, _ = strings.Cut(src.APIVersion, "/")
	}
	if group != want || src.Kind != e.Object.Kind {
		return false
	}
	if src.Name != "" && src.Name != "*" && src.Name != e.Object.Name {
		return false
	}
	for key, value := range src.MatchLabels {
		if got, ok := e.Labels[key]; !ok || got != value {
			return false
		}
	}
	return true
}

// anyMatches tells whether message matches one of the expressions of the
// list named field.
func anyMatches(expressions []string, message, field string) (bool, error) {
	for i, expr := range expressions {
		re, err := regexp.Compile(expr)
		if err != nil {
			return false, fmt.Errorf("spec.%s[%d] is not a regular expression: %w", field, i, err)
		}
		if re.MatchString(message) {
			return true, nil
		}
	}
	return false, nil
}
