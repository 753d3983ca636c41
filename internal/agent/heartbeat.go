package agent

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/fleet"
)

// DefaultLeaseDuration is how long the hub waits for a renewal of the
// agent's Lease before it counts the cluster as unreachable.
const DefaultLeaseDuration = 40 * time.Second

// heartbeat renews the agent's Lease in its namespace on the hub, four
// times per duration, so that one lost renewal does not make the cluster
// unreachable. A renewal that fails is logged and tried at the next tick:
// the cluster goes on as last applied while the hub is away.
type heartbeat struct {
	hub       client.Client
	namespace string
	holder    string
	duration  time.Duration
	// last is the Lease as the last renewal wrote it: the next renewal
	// updates it without reading it first. nil after a failure.
	last *coordinationv1.Lease
}

// Start renews the Lease until ctx ends.
func (h *heartbeat) Start(ctx context.Context) error {
	log := ctrl.Log.WithName("agent").WithName("heartbeat")
	tick := time.NewTicker(h.duration / 4)
	defer tick.Stop()
	failing := false
	for {
		err := h.renew(ctx)
		switch {
		case err != nil && !failing:
			log.Error(err, "renewing the agent's Lease on the hub; trying again")
		case err == nil && failing:
			log.Info("renewed the agent's Lease on the hub again")
		}
		failing = err != nil
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// renew creates the Lease, or sets its renewal time to now: one update
// from the Lease it last wrote, or after a failure a read and an update.
func (h *heartbeat) renew(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, h.duration/4)
	defer cancel()
	now := metav1.NewMicroTime(time.Now())
	if lease := h.last; lease != nil {
		h.last = nil
		h.fill(lease, now)
		if err := h.hub.Update(ctx, lease); err != nil {
			return fmt.Errorf("renewing Lease %s/%s: %w", h.namespace, fleet.AgentLease, err)
		}
		h.last = lease
		return nil
	}
	lease := &coordinationv1.Lease{}
	err := h.hub.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: fleet.AgentLease}, lease)
	if apierrors.IsNotFound(err) {
		lease = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: h.namespace, Name: fleet.AgentLease}}
		h.fill(lease, now)
		if err := h.hub.Create(ctx, lease); err != nil {
			return fmt.Errorf("creating Lease %s/%s: %w", h.namespace, fleet.AgentLease, err)
		}
		h.last = lease
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading Lease %s/%s: %w", h.namespace, fleet.AgentLease, err)
	}
	h.fill(lease, now)
	if err := h.hub.Update(ctx, lease); err != nil {
		return fmt.Errorf("renewing Lease %s/%s: %w", h.namespace, fleet.AgentLease, err)
	}
	h.last = lease
	return nil
}

func (h *heartbeat) fill(lease *coordinationv1.Lease, now metav1.MicroTime) {
	lease.Spec.HolderIdentity = ptr.To(h.holder)
	lease.Spec.LeaseDurationSeconds = ptr.To(int32(h.duration / time.Second))
	lease.Spec.RenewTime = &now
	if lease.Spec.AcquireTime == nil {
		lease.Spec.AcquireTime = &now
	}
}
