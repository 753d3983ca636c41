package plan

import (
	"strings"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The plan is a pure function: these tables check each ordering rule of the
// design without an API server (go test -run TestPlan ./pkg/engine).

var groupOfKind = map[string]string{
	"Namespace": "", "ConfigMap": "", "Secret": "", "ServiceAccount": "", "Job": "batch",
	"CustomResourceDefinition": kinds.GroupAPIExtension, "ClusterRole": kinds.GroupRBAC, "Deployment": "apps",
	"APIService": kinds.GroupAPIRegistry, "Widget": "test.wavekit.dev",
}

// object is a rendered object "Kind name" in namespace ns (none for
// cluster-scoped kinds), prepared as classify would leave it.
func object(kind, name string, apply int16, opts ...func(*Desired)) *Desired {
	key := manifests.ObjectKey{Group: groupOfKind[kind], Kind: kind, Name: name}
	if kind != "Namespace" && kind != "CustomResourceDefinition" && kind != "ClusterRole" && kind != "APIService" {
		key.Namespace = "ns"
	}
	d := &Desired{Key: key, Stage: kinds.StageOf(key.Group, kind), Digest: "d1"}
	d.Policies.ApplyOrder = apply
	for _, o := range opts {
		o(d)
	}
	return d
}

func purgedAt(order int16) func(*Desired) {
	return func(d *Desired) { d.Policies.PurgeOrder = &order }
}

// serving makes a CRD serve Widgets; instances of served types are managed
// instances, the last stage of their wave.
func serving(d *Desired) {
	d.ManagedTypes = []manifests.TypeInfo{{Group: "test.wavekit.dev", Kind: "Widget"}}
}

func managedInstance(d *Desired) { d.Stage = kinds.StageManagedInstances }

func digest(value string) func(*Desired) { return func(d *Desired) { d.Digest = value } }

// inventoryOf returns an inventory that holds objs in the given phase (with
// digest "d1") and the extra items.
func inventoryOf(objs []*Desired, phase manifests.Phase, extra ...*manifests.InventoryItem) (map[manifests.ObjectKey]*manifests.InventoryItem, []*manifests.InventoryItem) {
	items := map[manifests.ObjectKey]*manifests.InventoryItem{}
	var list []*manifests.InventoryItem
	for _, d := range objs {
		item := &manifests.InventoryItem{Group: d.Key.Group, Kind: d.Key.Kind, Namespace: d.Key.Namespace, Name: d.Key.Name, Phase: phase, Digest: "d1"}
		items[d.Key] = item
		list = append(list, item)
	}
	for _, item := range extra {
		items[item.Key()] = item
		list = append(list, item)
	}
	return items, list
}

func item(kind, name string, deleteOrder int16, opts ...func(*manifests.InventoryItem)) *manifests.InventoryItem {
	d := object(kind, name, 0)
	it := &manifests.InventoryItem{Group: d.Key.Group, Kind: kind, Namespace: d.Key.Namespace, Name: name, DeleteOrder: deleteOrder, Phase: manifests.PhaseReady}
	for _, o := range opts {
		o(it)
	}
	return it
}

func hook(event string) func(*manifests.InventoryItem) {
	return func(i *manifests.InventoryItem) { i.DeleteHook = event }
}

func policy(p manifests.DeletePolicy) func(*manifests.InventoryItem) {
	return func(i *manifests.InventoryItem) { i.DeletePolicy = p }
}

func servesWidgets(i *manifests.InventoryItem) {
	i.ManagedTypes = []manifests.TypeInfo{{Group: "test.wavekit.dev", Kind: "Widget"}}
}

func checkPlan(t *testing.T, got Plan, want ...string) {
	t.Helper()
	lines := got.lines()
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan:\n  %s\nwant:\n  %s", strings.Join(lines, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestPlanApply(t *testing.T) {
	tests := []struct {
		name  string
		objs  []*Desired
		phase manifests.Phase
		extra []*manifests.InventoryItem
		want  []string
	}{{
		name: "kind stages within a wave: namespaces, definitions, configuration, workloads, API services",
		objs: []*Desired{
			object("Deployment", "app", 0), object("APIService", "v1.metrics", 0), object("ConfigMap", "cfg", 0),
			object("Namespace", "ns", 0), object("CustomResourceDefinition", "widgets", 0), object("ServiceAccount", "sa", 0),
		},
		want: []string{
			"apply 0 namespaces: apply Namespace ns",
			"apply 0 definitions: apply apiextensions.k8s.io/CustomResourceDefinition widgets",
			"apply 0 configuration: apply ConfigMap ns/cfg, apply ServiceAccount ns/sa",
			"apply 0 workloads: apply apps/Deployment ns/app",
			"apply 0 api services: apply apiregistration.k8s.io/APIService v1.metrics",
			"wait 0: ready Namespace ns, ready apiextensions.k8s.io/CustomResourceDefinition widgets, ready ConfigMap ns/cfg, " +
				"ready ServiceAccount ns/sa, ready apps/Deployment ns/app, ready apiregistration.k8s.io/APIService v1.metrics",
		},
	}, {
		name: "waves ascending, each ready before the next starts",
		objs: []*Desired{object("ConfigMap", "late", 5), object("ConfigMap", "early", -3)},
		want: []string{
			"apply -3 configuration: apply ConfigMap ns/early",
			"wait -3: ready ConfigMap ns/early",
			"apply 5 configuration: apply ConfigMap ns/late",
			"wait 5: ready ConfigMap ns/late",
		},
	}, {
		name: "managed instances last in their wave, once the definitions serving them are ready",
		objs: []*Desired{
			object("Widget", "w", 0, managedInstance), object("CustomResourceDefinition", "widgets", 0, serving), object("Deployment", "app", 0),
		},
		want: []string{
			"apply 0 definitions: apply apiextensions.k8s.io/CustomResourceDefinition widgets",
			"apply 0 workloads: apply apps/Deployment ns/app",
			"wait 0: ready apiextensions.k8s.io/CustomResourceDefinition widgets (serves the instances that follow)",
			"apply 0 managed instances: apply test.wavekit.dev/Widget ns/w",
			"wait 0: ready apiextensions.k8s.io/CustomResourceDefinition widgets, ready apps/Deployment ns/app, ready test.wavekit.dev/Widget ns/w",
		},
	}, {
		name: "purged at the end of its purge wave: every purge order before the next wave's",
		objs: []*Desired{
			object("Job", "migrate", 0, purgedAt(1)), object("Deployment", "app", 2), object("Job", "last", 2, purgedAt(2)),
		},
		want: []string{
			"apply 0 workloads: apply batch/Job ns/migrate",
			"wait 0: ready batch/Job ns/migrate",
			"purge 0: purge batch/Job ns/migrate",
			"apply 2 workloads: apply apps/Deployment ns/app, apply batch/Job ns/last",
			"wait 2: ready apps/Deployment ns/app, ready batch/Job ns/last",
			"purge 2: purge batch/Job ns/last",
		},
	}, {
		name:  "a purged object that did not change is kept gone; one that changed is applied again",
		objs:  []*Desired{object("Job", "same", 0, purgedAt(0)), object("Job", "changed", 0, purgedAt(0), digest("d2"))},
		phase: manifests.PhaseCompleted,
		want: []string{
			"apply 0 workloads: apply batch/Job ns/changed, unchanged batch/Job ns/same (purged and unchanged)",
			"wait 0: ready batch/Job ns/changed, ready batch/Job ns/same",
		},
	}, {
		name: "pruned after the last wave: delete waves ascending, stages in reverse, managed instances first",
		objs: []*Desired{object("ConfigMap", "kept", 0)},
		extra: []*manifests.InventoryItem{
			item("Namespace", "old", 0), item("ConfigMap", "old", 0), item("Deployment", "old", 0),
			item("Widget", "old", 0), item("CustomResourceDefinition", "widgets", 0, servesWidgets),
			item("Secret", "first", -1), item("ConfigMap", "orphaned", 0, policy(manifests.DeleteOrphanOnApply)),
		},
		want: []string{
			"apply 0 configuration: apply ConfigMap ns/kept",
			"wait 0: ready ConfigMap ns/kept",
			"prune -1 configuration: prune Secret ns/first",
			"prune 0 managed instances: prune test.wavekit.dev/Widget ns/old",
			"prune 0 workloads: prune apps/Deployment ns/old",
			"prune 0 configuration: prune ConfigMap ns/old, orphan ConfigMap ns/orphaned (delete-policy orphan-on-apply)",
			"prune 0 definitions: prune apiextensions.k8s.io/CustomResourceDefinition widgets",
			"prune 0 namespaces: prune Namespace old",
		},
	}, {
		name:  "delete hooks are not pruned while the component lives",
		objs:  []*Desired{object("ConfigMap", "kept", 0)},
		extra: []*manifests.InventoryItem{item("Job", "cleanup", -10000, hook("pre-delete"))},
		want: []string{
			"apply 0 configuration: apply ConfigMap ns/kept",
			"wait 0: ready ConfigMap ns/kept",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			SortForApply(tt.objs)
			phase := tt.phase
			if phase == "" {
				phase = manifests.PhaseReady
			}
			items, list := inventoryOf(tt.objs, phase, tt.extra...)
			checkPlan(t, Apply(tt.objs, items, list, ExternalWaves{}), tt.want...)
		})
	}
}

func TestPlanDelete(t *testing.T) {
	tests := []struct {
		name  string
		items []*manifests.InventoryItem
		want  []string
	}{{
		name: "delete waves ascending; in each, its hooks one at a time, then the objects, stages in reverse",
		items: []*manifests.InventoryItem{
			item("Namespace", "ns", 0), item("ConfigMap", "cfg", 0), item("Deployment", "app", 0),
			item("Job", "post", 10000, hook("post-delete")), item("Job", "pre-b", -10000, hook("pre-delete")),
			item("Job", "pre-a", -10000, hook("pre-delete")), item("ConfigMap", "early", -5),
		},
		want: []string{
			"hook -10000: run-hook batch/Job ns/pre-b (pre-delete)",
			"hook -10000: run-hook batch/Job ns/pre-a (pre-delete)",
			"delete -5 configuration: delete ConfigMap ns/early",
			"delete 0 workloads: delete apps/Deployment ns/app",
			"delete 0 configuration: delete ConfigMap ns/cfg",
			"delete 0 namespaces: delete Namespace ns",
			"hook 10000: run-hook batch/Job ns/post (post-delete)",
		},
	}, {
		name: "managed instances before the definitions that serve them",
		items: []*manifests.InventoryItem{
			item("CustomResourceDefinition", "widgets", 0, servesWidgets), item("Widget", "w", 0),
		},
		want: []string{
			"delete 0 managed instances: delete test.wavekit.dev/Widget ns/w",
			"delete 0 definitions: delete apiextensions.k8s.io/CustomResourceDefinition widgets",
		},
	}, {
		name: "orphan policies: orphan and orphan-on-delete keep the object, orphan-on-apply does not",
		items: []*manifests.InventoryItem{
			item("ConfigMap", "a", 0, policy(manifests.DeleteOrphan)), item("ConfigMap", "b", 0, policy(manifests.DeleteOrphanOnDelete)),
			item("ConfigMap", "c", 0, policy(manifests.DeleteOrphanOnApply)),
		},
		want: []string{
			"delete 0 configuration: orphan ConfigMap ns/a (delete-policy orphan), " +
				"orphan ConfigMap ns/b (delete-policy orphan-on-delete), delete ConfigMap ns/c",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkPlan(t, Deletion(tt.items, managedTypesOfInventory(tt.items), OnDelete), tt.want...)
		})
	}
}
