package external

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// removeOne deletes one recorded dependent and its Secret, or orphans it as
// its delete policy says (a prune heeds orphan-on-apply, a deletion
// orphan-on-delete); it reports whether the record of it can go.
func (p *Pass) removeOne(ctx context.Context, action engine.Action, item *manifests.ExternalItem, out *engine.ExternalOutcome) (bool, error) {
	key := item.ObjectKey(p.cfg.Namespace)
	defer p.m.poller.keep(p.cfg.Component, p.pollKeysBut(item))
	if orphans(action, item.DeletePolicy) {
		out.Actions = append(out.Actions, engine.ObjectAction{Object: key, Action: engine.ActionOrphan})
		return true, nil
	}
	provider, err := p.m.provider(item.Kind)
	if err != nil {
		return false, err
	}
	// Without an ID too: a resource made just before a crash is found by
	// its key.
	item.Phase = manifests.PhaseDeleting
	req := p.request(item, nil)
	if req.Credentials, err = p.deleteCredentials(ctx, item); err != nil {
		return false, err
	}
	if err := provider.Delete(ctx, req); err != nil {
		return false, fmt.Errorf("deleting: %w", err)
	}
	if err := p.secrets.remove(ctx, item.SecretName); err != nil {
		return false, err
	}
	p.m.newDrift(p.cfg.Component.String()+"/"+item.Kind+"/"+item.Name, "")
	out.Changed = true
	out.Actions = append(out.Actions, engine.ObjectAction{Object: key, Action: engine.ActionDelete})
	return true, nil
}

// orphans tells whether a delete policy keeps a dependent on action
// (ActionPrune: it left the render; ActionDelete: the component goes).
func orphans(action engine.Action, policy manifests.DeletePolicy) bool {
	switch policy {
	case manifests.DeleteOrphan:
		return true
	case manifests.DeleteOrphanOnApply:
		return action == engine.ActionPrune
	case manifests.DeleteOrphanOnDelete:
		return action == engine.ActionDelete
	}
	return false
}

// pollKeysBut returns the poll keys of the recorded dependents other than
// item.
func (p *Pass) pollKeysBut(item *manifests.ExternalItem) []pollKey {
	var keys []pollKey
	for _, other := range *p.cfg.Items {
		if other.Kind != item.Kind || other.Name != item.Name {
			keys = append(keys, p.pollKey(other.Kind, other.Name))
		}
	}
	return keys
}

// deleteCredentials reads the credentials of item's API; when their Secret
// is gone already (its namespace is being deleted with the component),
// the ones the polls kept in memory do.
func (p *Pass) deleteCredentials(ctx context.Context, item *manifests.ExternalItem) (map[string][]byte, error) {
	creds, err := p.secrets.credentials(ctx, item.CredentialsFrom)
	if apierrors.IsNotFound(err) {
		if kept := p.m.poller.credentials(p.pollKey(item.Kind, item.Name)); kept != nil {
			return kept, nil
		}
	}
	return creds, err
}
