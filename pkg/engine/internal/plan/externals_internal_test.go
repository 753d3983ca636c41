package plan

import (
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// External dependents take a group of their own in each wave that holds
// some: first in an apply wave, last in a delete wave, and their prune after
// the objects' (go test -run TestPlanExternals ./pkg/engine).

func TestPlanExternalsApply(t *testing.T) {
	tests := []struct {
		name      string
		objs      []*Desired
		externals ExternalWaves
		want      []string
	}{{
		name:      "a wave's dependents before its objects; a wave of dependents only; their prune last",
		objs:      []*Desired{object("Deployment", "app", 1), object("ConfigMap", "cfg", 0)},
		externals: ExternalWaves{Present: true, Waves: []int16{-1, 1}},
		want: []string{
			"external -1: apply",
			"apply 0 configuration: apply ConfigMap ns/cfg",
			"wait 0: ready ConfigMap ns/cfg",
			"external 1: apply",
			"apply 1 workloads: apply apps/Deployment ns/app",
			"wait 1: ready apps/Deployment ns/app",
			"external 32767: prune",
		},
	}, {
		name:      "after the last wave of objects",
		objs:      []*Desired{object("ConfigMap", "cfg", 0)},
		externals: ExternalWaves{Present: true, Waves: []int16{5}},
		want: []string{
			"apply 0 configuration: apply ConfigMap ns/cfg",
			"wait 0: ready ConfigMap ns/cfg",
			"external 5: apply",
			"external 32767: prune",
		},
	}, {
		name:      "none rendered but some recorded: only the prune",
		externals: ExternalWaves{Present: true},
		want:      []string{"external 32767: prune"},
	}, {
		name: "no Externals: the plan of the objects alone",
		objs: []*Desired{object("ConfigMap", "cfg", 0)},
		want: []string{
			"apply 0 configuration: apply ConfigMap ns/cfg",
			"wait 0: ready ConfigMap ns/cfg",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			SortForApply(tt.objs)
			items, list := inventoryOf(tt.objs, manifests.PhaseReady)
			checkPlan(t, Apply(tt.objs, items, list, tt.externals), tt.want...)
		})
	}
}

func TestPlanExternalsDelete(t *testing.T) {
	items := []*manifests.InventoryItem{item("Deployment", "app", 0), item("ConfigMap", "late", 2)}
	p := WithExternals(Deletion(items, nil, OnDelete), []int16{0, 1}, api.ActionDelete, false)
	checkPlan(t, p,
		"delete 0 workloads: delete apps/Deployment ns/app",
		"external 0: delete",
		"external 1: delete",
		"delete 2 configuration: delete ConfigMap ns/late",
	)
}
