package plan

import (
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// decide is a pure function: this table checks each rule of the write
// decision without an API server (go test -run TestDecide ./pkg/engine).

var testOwner = Ownership{ID: "me", Description: "Component ns/me", Prefix: "wavekit.dev"}

// liveObject is a live object of d's kind, labelled with the owner id
// (none for ""), and with opts applied.
func liveObject(ownerID string, opts ...func(*unstructured.Unstructured)) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if ownerID != "" {
		u.SetLabels(map[string]string{testOwner.label(): ownerID})
	}
	for _, o := range opts {
		o(u)
	}
	return u
}

func deletingNow(u *unstructured.Unstructured) {
	now := metav1.Now()
	u.SetDeletionTimestamp(&now)
}

func createdFromRender(digest string) func(*unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		u.SetAnnotations(map[string]string{manifests.Key(testOwner.Prefix, manifests.AnnotationDigest): digest})
	}
}

func withPolicies(set func(*manifests.ObjectPolicies)) func(*Desired) {
	return func(d *Desired) { set(&d.Policies) }
}

func asJob(d *Desired) {
	d.GVK.Group, d.GVK.Version, d.GVK.Kind = "batch", "v1", "Job"
}

func asCRD(d *Desired) {
	d.GVK.Group, d.GVK.Version, d.GVK.Kind = kinds.GroupAPIExtension, "v1", "CustomResourceDefinition"
}

func TestDecide(t *testing.T) {
	drifted := func() ([]string, error) { return []string{"/data/a"}, nil }
	clean := func() ([]string, error) { return nil, nil }
	cases := []struct {
		name       string
		d          *Desired
		item       manifests.InventoryItem
		live       *unstructured.Unstructured
		change     func(*Facts)
		kind       WriteKind
		reason     string
		correction bool
		record     bool
	}{
		{name: "new object", d: object("ConfigMap", "a", 0), item: manifests.InventoryItem{Phase: manifests.PhaseScheduled},
			kind: WriteCreate, reason: reasonMissing},
		{name: "deleted by others at an unchanged render", d: object("ConfigMap", "a", 0), item: manifests.InventoryItem{Digest: "d1"},
			kind: WriteCreate, reason: reasonDeletedByOthers, correction: true},
		{name: "unchanged, clean", d: object("ConfigMap", "a", 0), item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("me"),
			change: func(f *Facts) { f.Drifted = clean }, kind: WriteKeep, reason: reasonUnchanged},
		{name: "render changed", d: object("ConfigMap", "a", 0, digest("d2")), item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("me"),
			kind: WriteUpdate, reason: reasonRenderChanged},
		{name: "render changed under recreate", d: object("ConfigMap", "a", 0, digest("d2"), withPolicies(func(p *manifests.ObjectPolicies) { p.Update = manifests.UpdateRecreate })),
			item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("me"), kind: WriteReplace, reason: reasonRenderChanged + "; " + reasonRecreate},
		{name: "forced", d: object("ConfigMap", "a", 0), item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("me"),
			change: func(f *Facts) { f.Owner.Force = true }, kind: WriteUpdate, reason: reasonForced},
		{name: "drift corrected", d: object("ConfigMap", "a", 0), item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("me"),
			change: func(f *Facts) { f.Drifted = drifted }, kind: WriteUpdate, reason: reasonDrifted, correction: true},
		{name: "drift left in mode Warn", d: object("ConfigMap", "a", 0), item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("me"),
			change: func(f *Facts) { f.Drifted, f.Drift = drifted, manifests.DriftWarn }, kind: WriteKeep, reason: ReasonDriftLeft},
		{name: "drift not looked for in mode Disabled", d: object("ConfigMap", "a", 0), item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("me"),
			change: func(f *Facts) {
				f.Drift = manifests.DriftDisabled
				f.Drifted = func() ([]string, error) { panic("drift looked for in mode Disabled") }
			}, kind: WriteKeep, reason: reasonUnchanged},
		{name: "drift check fails", d: object("ConfigMap", "a", 0), item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("me"),
			change: func(f *Facts) { f.Drifted = func() ([]string, error) { return nil, errors.New("boom") } }, kind: WriteRefuse, reason: "boom"},
		{name: "reapply interval elapsed", d: object("ConfigMap", "a", 0, withPolicies(func(p *manifests.ObjectPolicies) { p.ReapplyInterval = time.Minute })),
			item: manifests.InventoryItem{Digest: "d1", LastAppliedAt: 1000}, live: liveObject("me"),
			change: func(f *Facts) { f.Now = 1060 }, kind: WriteUpdate, reason: reasonReapply},
		{name: "reapply interval not yet", d: object("ConfigMap", "a", 0, withPolicies(func(p *manifests.ObjectPolicies) { p.ReapplyInterval = time.Minute })),
			item: manifests.InventoryItem{Digest: "d1", LastAppliedAt: 1000}, live: liveObject("me"),
			change: func(f *Facts) { f.Now, f.Drifted = 1059, clean }, kind: WriteKeep, reason: reasonUnchanged},
		{name: "reconcile-policy once", d: object("ConfigMap", "a", 0, digest("d2"), withPolicies(func(p *manifests.ObjectPolicies) { p.Reconcile = manifests.ReconcileOnce })),
			item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("me"), kind: WriteKeep, reason: reasonReconcileOnce},
		{name: "being deleted", d: object("ConfigMap", "a", 0, digest("d2")), item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("me", deletingNow),
			kind: WriteKeep, reason: reasonBeingDeleted},
		{name: "crd-policy Create keeps an existing CRD", d: object("CustomResourceDefinition", "w", 0, asCRD, digest("d2"), withPolicies(func(p *manifests.ObjectPolicies) { p.CRD = manifests.CRDCreate })),
			item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("me"), kind: WriteKeep, reason: reasonCRDCreate},
		{name: "taken over by another owner", d: object("ConfigMap", "a", 0), item: manifests.InventoryItem{Digest: "d1"}, live: liveObject("other"),
			kind: WriteRefuse, reason: "ConfigMap ns/a was taken over by owner other; it is applied again once that owner deletes or releases it"},
		{name: "adoption-policy never, unowned", d: object("ConfigMap", "a", 0, withPolicies(func(p *manifests.ObjectPolicies) { p.Adoption = manifests.AdoptNever })),
			item: manifests.InventoryItem{Phase: manifests.PhaseScheduled}, live: liveObject(""), kind: WriteRefuse,
			reason: "ConfigMap ns/a already exists and is not managed by Component ns/me (wavekit.dev/adoption-policy is never)"},
		{name: "adoption-policy if-unowned, owned by another", d: object("ConfigMap", "a", 0, withPolicies(func(p *manifests.ObjectPolicies) { p.Adoption = manifests.AdoptIfUnowned })),
			item: manifests.InventoryItem{Phase: manifests.PhaseScheduled}, live: liveObject("other"), kind: WriteRefuse,
			reason: "ConfigMap ns/a already exists and is managed by owner other (wavekit.dev/adoption-policy is " + string(manifests.AdoptIfUnowned) + ")"},
		{name: "adoption-policy always takes an owned object", d: object("ConfigMap", "a", 0, withPolicies(func(p *manifests.ObjectPolicies) { p.Adoption = manifests.AdoptAlways })),
			item: manifests.InventoryItem{Phase: manifests.PhaseScheduled}, live: liveObject("other"), kind: WriteUpdate, reason: reasonRenderChanged},
		{name: "create whose record was lost", d: object("ConfigMap", "a", 0, digest("d2")), item: manifests.InventoryItem{Digest: "d1"},
			live: liveObject("me", createdFromRender("d2")), change: func(f *Facts) { f.Drifted = clean }, kind: WriteKeep, reason: reasonUnchanged, record: true},
		{name: "purged hook, unchanged", d: object("Job", "migrate", 0, asJob, purgedAt(0)), item: manifests.InventoryItem{Digest: "d1", Phase: manifests.PhaseCompleted},
			kind: WriteKeep, reason: reasonSettled},
		{name: "purged at this render by an earlier pass", d: object("ConfigMap", "a", 0, purgedAt(0), digest("d2")), item: manifests.InventoryItem{Digest: "d1"},
			change: func(f *Facts) { f.PurgedAtRender = true }, kind: WriteKeep, reason: ReasonPurgedAtRender},
		{name: "job ran at this render and is gone", d: object("Job", "run", 0, asJob), item: manifests.InventoryItem{Digest: "d1", Ran: true, Phase: manifests.PhaseReady},
			kind: WriteKeep, reason: ReasonRunEnded},
		{name: "job ran at this render and is going", d: object("Job", "run", 0, asJob), item: manifests.InventoryItem{Digest: "d1", Ran: true, Phase: manifests.PhaseReady},
			live: liveObject("me", deletingNow), kind: WriteKeep, reason: reasonRunEnding},
		{name: "job of an earlier render leaving", d: object("Job", "run", 0, asJob, digest("d2")), item: manifests.InventoryItem{Digest: "d1", Ran: true},
			live: liveObject("me", deletingNow), kind: WriteKeep, reason: ReasonEarlierRun},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Facts{Desired: c.d, Item: &c.item, Live: c.live, Owner: testOwner, Now: 1, Drift: manifests.DriftCorrect, Drifted: clean}
			if c.change != nil {
				c.change(&f)
			}
			got := Decide(f)
			if got.Kind != c.kind || got.Reason != c.reason || got.Correction != c.correction || got.RecordCreate != c.record {
				t.Errorf("decide = %s (%q, correction %t, record %t), want %s (%q, correction %t, record %t)",
					got.Kind, got.Reason, got.Correction, got.RecordCreate, c.kind, c.reason, c.correction, c.record)
			}
			if got.Kind == WriteRefuse && got.Err == nil {
				t.Error("a refusal carries no error")
			}
			var objErr *api.ObjectError
			var userErr *manifests.UserError
			if got.Kind == WriteRefuse && got.Err != nil && c.name != "drift check fails" &&
				(!errors.As(got.Err, &objErr) || objErr.Object != c.d.Key || !errors.As(got.Err, &userErr)) {
				t.Errorf("refusal %v is not an ObjectError of %s and a UserError", got.Err, c.d.Key)
			}
		})
	}
}

// An object's failure is wrapped once: wrapping it again for the same
// object keeps it, and a delete hook's apply failure becomes the hook's.
func TestObjectErrorWrappedOnce(t *testing.T) {
	key := manifests.ObjectKey{Group: "batch", Kind: "Job", Namespace: "ns", Name: "migrate"}
	applyErr := api.StepError(api.ActionApply, key, errors.New("conflict"))
	if again := api.StepError(api.ActionApply, key, applyErr); again != applyErr {
		t.Errorf("wrapped twice: %v", again)
	}
	hookErr := api.AsStep(api.ActionRunHook, key, applyErr)
	var objErr *api.ObjectError
	if !errors.As(hookErr, &objErr) || objErr.Action != api.ActionRunHook || hookErr.Error() != "running delete hook batch/Job ns/migrate: conflict" {
		t.Errorf("hook error = %v", hookErr)
	}
	refusal := api.Refused(key, errors.New("already exists and is managed by Component ns/other"))
	if refusal.Error() != "batch/Job ns/migrate already exists and is managed by Component ns/other" || !api.NeedsChange(refusal) {
		t.Errorf("refusal = %q, needs change %t", refusal, api.NeedsChange(refusal))
	}
}
