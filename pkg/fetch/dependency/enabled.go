package dependency

import (
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// enabled says whether Helm's dependency processing keeps dependency d of a
// chart whose values, coalesced as Helm coalesces them for it, are cvals,
// at values path path ("" for the chart rendered, "child." for its
// dependency child): its tags first, then the first condition path that
// holds a boolean. unknown holds the names (and aliases) of dependencies
// whose own default values are not known yet; a condition path under one
// of them, not set in cvals, could be set by those defaults, so d is then
// needed until they are known.
func enabled(d *chart.Dependency, cvals chartutil.Values, path string, unknown map[string]bool) bool {
	on := tagsEnable(d, cvals)
	for _, condition := range strings.Split(strings.TrimSpace(d.Condition), ",") {
		condition = strings.TrimSpace(condition)
		if condition == "" {
			continue
		}
		v, err := cvals.PathValue(path + condition)
		if err == nil {
			if b, ok := v.(bool); ok {
				return b
			}
			continue // Helm warns of a value that is not a boolean and reads the next path
		}
		if first, _, _ := strings.Cut(condition, "."); unknown[first] {
			return true // decided by defaults not known yet
		}
	}
	return on
}

// tagsEnable is what d's tags say, as Helm reads them in cvals' tags: off
// when one of its tags is false and none is true, else on.
func tagsEnable(d *chart.Dependency, cvals chartutil.Values) bool {
	tags, err := cvals.Table("tags")
	if err != nil {
		return true
	}
	var hasTrue, hasFalse bool
	for _, tag := range d.Tags {
		if b, ok := tags[tag].(bool); ok {
			hasTrue = hasTrue || b
			hasFalse = hasFalse || !b
		}
	}
	return hasTrue || !hasFalse
}

// nameInValues is the name a dependency's values and conditions are found
// under: its alias, if it has one.
func nameInValues(d *chart.Dependency) string {
	if d.Alias != "" {
		return d.Alias
	}
	return d.Name
}
