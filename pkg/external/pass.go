package external

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// PassConfig says whose external dependents a Pass works on.
type PassConfig struct {
	// Component is the component (its events and polls are its).
	Component types.NamespacedName
	// Namespace is where the component's objects and Secrets go (its
	// placement namespace); credentialsFrom Secrets are read there too.
	Namespace string
	// Client reads and writes those Secrets (the target's).
	Client client.Client
	// OwnerLabel and OwnerID mark the dependents' own Secrets.
	OwnerLabel, OwnerID string
	// Dependents are the render's (none for a deletion).
	Dependents []Dependent
	// Items is the component's record of its external dependents; the
	// pass updates it in place.
	Items *[]manifests.ExternalItem
	// Drift is the component's drift mode.
	Drift manifests.DriftMode
	// Save records new items before their resources are created (a status
	// write); an error ends the pass with it.
	Save func(ctx context.Context) error
}

// Pass is one engine pass's view of a component's external dependents; it
// implements engine.Externals.
type Pass struct {
	m       *Manager
	cfg     PassConfig
	secrets secrets
	// unsaved is true while items added by Record are not saved yet.
	unsaved bool
}

// Pass returns the Pass of one component for one engine pass. It fails,
// as a manifests.UserError, when a dependent's kind has no provider.
func (m *Manager) Pass(cfg PassConfig) (*Pass, error) {
	for _, d := range cfg.Dependents {
		if _, err := m.provider(d.Kind); err != nil {
			return nil, &manifests.UserError{Err: fmt.Errorf("external %s %s: %w", d.Kind, d.Name, err)}
		}
	}
	return &Pass{m: m, cfg: cfg, secrets: secrets{client: cfg.Client, namespace: cfg.Namespace, ownerLabel: cfg.OwnerLabel, ownerID: cfg.OwnerID}}, nil
}

// Waves returns the apply waves of the render's dependents, or the delete
// waves of the recorded ones.
func (p *Pass) Waves(deleting bool) []int16 {
	var waves []int16
	if deleting {
		for _, item := range *p.cfg.Items {
			waves = append(waves, item.DeleteOrder)
		}
	} else {
		for _, d := range p.cfg.Dependents {
			waves = append(waves, d.Policies.ApplyOrder)
		}
	}
	slices.Sort(waves)
	return slices.Compact(waves)
}

// Run applies, prunes or deletes the dependents of one plan group.
func (p *Pass) Run(ctx context.Context, step engine.ExternalStep) (engine.ExternalOutcome, error) {
	switch step.Action {
	case engine.ActionApply:
		if err := p.recordNew(ctx); err != nil {
			return engine.ExternalOutcome{}, err
		}
		return p.applyWave(ctx, step.Wave)
	case engine.ActionPrune:
		return p.removeWhere(ctx, engine.ActionPrune, func(item *manifests.ExternalItem) bool { return p.rendered(item) == nil })
	case engine.ActionDelete:
		return p.removeWhere(ctx, engine.ActionDelete, func(item *manifests.ExternalItem) bool { return item.DeleteOrder == step.Wave })
	}
	return engine.ExternalOutcome{}, fmt.Errorf("external dependents: unknown step %q", step.Action)
}

// Record adds an item for each rendered dependent the record lacks and
// refreshes the policies and orders of known ones; it reports whether it
// added items. A caller that saves the record itself before the engine
// pass (with the inventory's write ahead) calls Saved; otherwise the first
// apply group saves it before anything is created.
func (p *Pass) Record() bool {
	added := false
	for _, d := range p.cfg.Dependents {
		item := p.item(d.Kind, d.Name)
		if item == nil {
			*p.cfg.Items = append(*p.cfg.Items, manifests.ExternalItem{
				Kind: d.Kind, Name: d.Name, Key: Key(p.cfg.Component.Namespace, p.cfg.Component.Name, d.Kind, d.Name),
				Phase: manifests.PhaseScheduled,
			})
			item, added = &(*p.cfg.Items)[len(*p.cfg.Items)-1], true
		}
		describe(item, d)
	}
	p.unsaved = p.unsaved || added
	return added
}

// Saved says the record was saved.
func (p *Pass) Saved() { p.unsaved = false }

// recordNew records the rendered dependents and saves the record when it
// has items not saved yet, before anything is created.
func (p *Pass) recordNew(ctx context.Context) error {
	if p.Record(); !p.unsaved {
		return nil
	}
	p.unsaved = false
	if err := p.cfg.Save(ctx); err != nil {
		return fmt.Errorf("recording external dependents before creating them: %w", err)
	}
	return nil
}

// describe copies the policies, orders and Secret names of d into item.
func describe(item *manifests.ExternalItem, d Dependent) {
	builtin := manifests.Defaults{}.WithFallbacks()
	item.ApplyOrder, item.DeleteOrder = d.Policies.ApplyOrder, d.Policies.DeleteOrder
	item.ReconcilePolicy = d.Policies.Reconcile
	if item.ReconcilePolicy == builtin.Reconcile {
		item.ReconcilePolicy = ""
	}
	item.DeletePolicy = d.Policies.Delete
	if item.DeletePolicy == builtin.Delete {
		item.DeletePolicy = ""
	}
	item.CredentialsFrom = d.CredentialsFrom
	item.SecretName = ""
	if d.Secret != nil {
		item.SecretName = d.Secret.Name
	}
}

// item returns the record of kind/name, nil when there is none.
func (p *Pass) item(kind, name string) *manifests.ExternalItem {
	for i := range *p.cfg.Items {
		if item := &(*p.cfg.Items)[i]; item.Kind == kind && item.Name == name {
			return item
		}
	}
	return nil
}

// rendered returns the dependent of item in the render, nil when it left.
func (p *Pass) rendered(item *manifests.ExternalItem) *Dependent {
	for i := range p.cfg.Dependents {
		if d := &p.cfg.Dependents[i]; d.Kind == item.Kind && d.Name == item.Name {
			return d
		}
	}
	return nil
}

// applyWave reconciles the dependents of one apply wave, one after the
// other in render order; the first error ends the wave.
func (p *Pass) applyWave(ctx context.Context, wave int16) (engine.ExternalOutcome, error) {
	out := engine.ExternalOutcome{Done: true}
	var kept []pollKey
	for _, d := range p.cfg.Dependents {
		kept = append(kept, p.pollKey(d.Kind, d.Name))
		if d.Policies.ApplyOrder != wave {
			continue
		}
		item := p.item(d.Kind, d.Name)
		if err := p.applyOne(ctx, d, item, &out); err != nil {
			item.Phase, item.Status = manifests.PhaseError, err.Error()
			return out, fmt.Errorf("external %s %s: %w", d.Kind, d.Name, err)
		}
	}
	p.m.poller.keep(p.cfg.Component, kept)
	return out, nil
}

// removeWhere deletes (or orphans) the recorded dependents selected, one
// after the other, and drops them from the record.
func (p *Pass) removeWhere(ctx context.Context, action engine.Action, selected func(*manifests.ExternalItem) bool) (engine.ExternalOutcome, error) {
	out := engine.ExternalOutcome{Done: true}
	var errs []error
	kept := (*p.cfg.Items)[:0]
	for _, item := range *p.cfg.Items {
		if !selected(&item) {
			kept = append(kept, item)
			continue
		}
		done, err := p.removeOne(ctx, action, &item, &out)
		if err != nil {
			item.Phase, item.Status = manifests.PhaseError, err.Error()
			errs = append(errs, fmt.Errorf("external %s %s: %w", item.Kind, item.Name, err))
		}
		if !done {
			kept = append(kept, item)
		}
	}
	*p.cfg.Items = kept
	if len(errs) > 0 {
		out.Done = false
	}
	return out, errors.Join(errs...)
}

// pollKey is the poller's key of a dependent of this component.
func (p *Pass) pollKey(kind, name string) pollKey {
	return pollKey{component: p.cfg.Component, kind: kind, name: name}
}

// request is what the provider is asked about item.
func (p *Pass) request(item *manifests.ExternalItem, spec map[string]any) Request {
	return Request{Kind: item.Kind, Name: item.Name, Namespace: p.cfg.Namespace, Key: item.Key, ID: item.ID, Spec: spec}
}
