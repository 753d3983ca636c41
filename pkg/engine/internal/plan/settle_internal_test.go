package plan

import (
	"errors"
	"reflect"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// settle is a pure function: these tables check how the outcomes of one
// group reach the inventory, in plan order, without an API server.

func settleKey(name string) manifests.ObjectKey {
	return manifests.ObjectKey{Kind: "ConfigMap", Namespace: "ns", Name: name}
}

func itemsAt(phases map[string]manifests.Phase) map[manifests.ObjectKey]*manifests.InventoryItem {
	items := map[manifests.ObjectKey]*manifests.InventoryItem{}
	for name, phase := range phases {
		k := settleKey(name)
		items[k] = &manifests.InventoryItem{Kind: k.Kind, Namespace: k.Namespace, Name: k.Name, Phase: phase, Status: "old"}
	}
	return items
}

func TestSettle(t *testing.T) {
	errA, errB := errors.New("a failed"), errors.New("b failed")
	tests := []struct {
		name        string
		phases      map[string]manifests.Phase
		outs        []Outcome
		wantPhases  map[string]manifests.Phase
		wantStatus  map[string]string
		wantActions []api.ObjectAction
		wantWaiting []api.Waiting
		wantBlocked []api.Blocker
		wantChanged bool
		wantErr     []error
	}{{
		name:   "actions in the order of the outcomes, not of the writes",
		phases: map[string]manifests.Phase{"a": manifests.PhaseScheduled, "b": manifests.PhaseReady, "c": manifests.PhaseScheduled},
		outs: []Outcome{
			{Key: settleKey("c"), Action: api.ActionCreate, Phase: manifests.PhaseCreating, Changed: true, Written: true, Digest: "d"},
			{Key: settleKey("a"), Action: api.ActionCreate, Phase: manifests.PhaseReady, SetStatus: true, Changed: true, Written: true, Digest: "d"},
			{Key: settleKey("b")},
		},
		wantPhases:  map[string]manifests.Phase{"a": manifests.PhaseReady, "b": manifests.PhaseReady, "c": manifests.PhaseCreating},
		wantStatus:  map[string]string{"a": "", "b": "old", "c": "old"},
		wantActions: []api.ObjectAction{{Object: settleKey("c"), Action: api.ActionCreate}, {Object: settleKey("a"), Action: api.ActionCreate}},
		wantChanged: true,
	}, {
		name:        "a failure sets the phase and status and joins errors in order",
		phases:      map[string]manifests.Phase{"a": manifests.PhaseReady, "b": manifests.PhaseReady},
		outs:        []Outcome{{Key: settleKey("a"), Phase: manifests.PhaseError, Status: "taken", SetStatus: true, Err: errA}, {Key: settleKey("b"), Err: errB}},
		wantPhases:  map[string]manifests.Phase{"a": manifests.PhaseError, "b": manifests.PhaseReady},
		wantStatus:  map[string]string{"a": "taken", "b": "old"},
		wantErr:     []error{errA, errB},
		wantChanged: false,
	}, {
		name:   "deletions: dropped, on their way out, kept",
		phases: map[string]manifests.Phase{"a": manifests.PhaseDeleting, "b": manifests.PhaseReady, "c": manifests.PhaseReady},
		outs: []Outcome{
			{Key: settleKey("a"), Drop: true, Action: api.ActionDelete},
			{Key: settleKey("b"), Phase: manifests.PhaseDeleting, Waiting: "being deleted", Changed: true},
			{Key: settleKey("c"), Blocked: "1 Widget left"},
		},
		wantPhases:  map[string]manifests.Phase{"b": manifests.PhaseDeleting, "c": manifests.PhaseReady},
		wantStatus:  map[string]string{"b": "old", "c": "old"},
		wantActions: []api.ObjectAction{{Object: settleKey("a"), Action: api.ActionDelete}},
		wantWaiting: []api.Waiting{{Object: settleKey("b"), Reason: "being deleted"}},
		wantBlocked: []api.Blocker{{Object: settleKey("c"), Reason: "1 Widget left"}},
		wantChanged: true,
	}, {
		name:        "a wait changes nothing",
		phases:      map[string]manifests.Phase{"a": manifests.PhaseCreating},
		outs:        []Outcome{{Key: settleKey("a"), Waiting: "Creating"}},
		wantPhases:  map[string]manifests.Phase{"a": manifests.PhaseCreating},
		wantStatus:  map[string]string{"a": "old"},
		wantWaiting: []api.Waiting{{Object: settleKey("a"), Reason: "Creating"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := itemsAt(tt.phases)
			s := Settle(items, tt.outs)
			gotPhases, gotStatus := map[string]manifests.Phase{}, map[string]string{}
			for k, item := range items {
				gotPhases[k.Name], gotStatus[k.Name] = item.Phase, item.Status
			}
			check := func(what string, got, want any) {
				t.Helper()
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("phases", gotPhases, tt.wantPhases)
			check("statuses", gotStatus, tt.wantStatus)
			check("actions", s.Actions, tt.wantActions)
			check("waiting", s.Waiting, tt.wantWaiting)
			check("blocked", s.Blocked, tt.wantBlocked)
			check("changed", s.Changed, tt.wantChanged)
			check("error", s.Err, errors.Join(tt.wantErr...))
		})
	}
}
