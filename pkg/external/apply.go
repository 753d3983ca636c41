package external

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// applyOne brings one dependent to its desired state: it observes it
// (or takes what the poller saw within the poll interval), creates it when
// it is missing, records its ID, updates it when the render changed or, by
// the drift mode, when it drifted, and says whether it is ready.
func (p *Pass) applyOne(ctx context.Context, d Dependent, item *manifests.ExternalItem, out *engine.ExternalOutcome) error {
	provider, _ := p.m.provider(d.Kind) // checked by Manager.Pass
	key := item.ObjectKey(p.cfg.Namespace)
	req := p.request(item, d.Spec)
	obs, fresh := p.m.poller.observed(p.pollKey(d.Kind, d.Name), item.ID)
	if !fresh || item.Digest != d.Digest {
		var err error
		if req.Credentials, err = p.secrets.credentials(ctx, d.CredentialsFrom); err != nil {
			return err
		}
		if obs, err = provider.Observe(ctx, req); err != nil {
			return fmt.Errorf("observing: %w", err)
		}
	} else {
		req.Credentials = p.m.poller.credentials(p.pollKey(d.Kind, d.Name))
	}
	if obs != nil && item.ID != obs.ID {
		item.ID = obs.ID // found by its key: made before a crash, or adopted
	}
	obs, err := p.converge(ctx, provider, d, item, &req, obs, out)
	if err != nil {
		return err
	}
	p.m.poller.track(p.pollKey(d.Kind, d.Name), provider, req, d.Poll, obs)
	p.settle(item, obs, key, out)
	return nil
}

// converge creates, updates or leaves the dependent as its state, its
// policies and the drift mode say, and returns what it is now (nil: it is
// missing and left so).
func (p *Pass) converge(ctx context.Context, provider Provider, d Dependent, item *manifests.ExternalItem, req *Request, obs *Observation, out *engine.ExternalOutcome) (*Observation, error) {
	key := item.ObjectKey(p.cfg.Namespace)
	changedRender := item.Digest != d.Digest
	once := item.ReconcilePolicy == manifests.ReconcileOnce && item.Digest != ""
	switch {
	case obs == nil && item.ID != "" && (once || !changedRender && p.cfg.Drift != manifests.DriftCorrect && p.cfg.Drift != ""):
		if p.cfg.Drift != manifests.DriftDisabled {
			p.reportDrift(d, key, "missing", out)
		}
		return nil, nil
	case obs == nil:
		return p.create(ctx, provider, d, item, req, out)
	case matches(provider, d.Spec, *obs):
		item.Digest = d.Digest
		p.m.newDrift(p.driftKey(d), "")
		return obs, nil
	case once, !changedRender && p.cfg.Drift != manifests.DriftCorrect && p.cfg.Drift != "":
		if p.cfg.Drift != manifests.DriftDisabled {
			p.reportDrift(d, key, "/spec", out)
		}
		return obs, nil
	}
	return p.update(ctx, provider, d, item, req, *obs, out)
}

// create writes the dependent's Secret and makes the resource; its ID is
// in the record from here on.
func (p *Pass) create(ctx context.Context, provider Provider, d Dependent, item *manifests.ExternalItem, req *Request, out *engine.ExternalOutcome) (*Observation, error) {
	var err error
	if req.Secret, err = p.secrets.ensure(ctx, d.Secret); err != nil {
		return nil, err
	}
	made, err := provider.Create(ctx, *req)
	if err != nil {
		return nil, fmt.Errorf("creating: %w", err)
	}
	if hook := p.m.opts.AfterCreate; hook != nil {
		if err := hook(ctx, *req, made); err != nil {
			return nil, err
		}
	}
	item.ID, item.Digest, item.Phase = made.ID, d.Digest, manifests.PhaseCreating
	req.ID = made.ID
	out.Changed = true
	out.Actions = append(out.Actions, engine.ObjectAction{Object: item.ObjectKey(p.cfg.Namespace), Action: engine.ActionCreate})
	return &made, nil
}

// update writes the dependent's Secret and brings the resource to the
// render.
func (p *Pass) update(ctx context.Context, provider Provider, d Dependent, item *manifests.ExternalItem, req *Request, current Observation, out *engine.ExternalOutcome) (*Observation, error) {
	var err error
	if req.Secret, err = p.secrets.ensure(ctx, d.Secret); err != nil {
		return nil, err
	}
	made, err := provider.Update(ctx, *req, current)
	if err != nil {
		return nil, fmt.Errorf("updating: %w", err)
	}
	item.Digest, item.Phase = d.Digest, manifests.PhaseUpdating
	out.Changed = true
	out.Actions = append(out.Actions, engine.ObjectAction{Object: item.ObjectKey(p.cfg.Namespace), Action: engine.ActionUpdate})
	p.m.newDrift(p.driftKey(d), "")
	return &made, nil
}

// settle records whether the dependent is ready, and the pass waits for it
// when it is not.
func (p *Pass) settle(item *manifests.ExternalItem, obs *Observation, key manifests.ObjectKey, out *engine.ExternalOutcome) {
	switch {
	case obs == nil:
		item.Phase, item.Status = manifests.PhaseReady, "missing; left so by the drift mode or reconcile-policy once"
	case obs.Ready:
		item.Phase, item.Status = manifests.PhaseReady, ""
	default:
		if item.Phase == manifests.PhaseReady || item.Phase == manifests.PhaseScheduled || item.Phase == manifests.PhaseError {
			item.Phase = manifests.PhaseCreating
		}
		item.Status = obs.Message
		out.Done = false
		out.Waiting = append(out.Waiting, engine.Waiting{Object: key, Reason: string(item.Phase) + ", " + orDefault(obs.Message, "not ready")})
	}
}

// reportDrift records the dependent's drift, left as the drift mode or its
// reconcile policy says.
func (p *Pass) reportDrift(d Dependent, key manifests.ObjectKey, path string, out *engine.ExternalOutcome) {
	out.Drifted = append(out.Drifted, engine.Drift{Object: key, Paths: []string{path}, New: p.m.newDrift(p.driftKey(d), path)})
}

// driftKey names a dependent of this component for the drift reported.
func (p *Pass) driftKey(d Dependent) string {
	return p.cfg.Component.String() + "/" + d.Kind + "/" + d.Name
}

// matches compares desired and observed: the provider's Matcher, or the
// two Specs as JSON values.
func matches(provider Provider, desired map[string]any, observed Observation) bool {
	if m, ok := provider.(Matcher); ok {
		return m.Matches(desired, observed)
	}
	a, errA := json.Marshal(desired)
	b, errB := json.Marshal(observed.Spec)
	if len(desired) == 0 && len(observed.Spec) == 0 {
		return true
	}
	return errA == nil && errB == nil && string(a) == string(b)
}

func orDefault(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
