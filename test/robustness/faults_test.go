package robustness_test

import (
	"context"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// faultRun is a fault under way.
type faultRun struct {
	done chan struct{}
	err  error
}

// startFault injects the fault of s in the background; operations go on
// meanwhile. The returned run is done when the fault is over.
func (r *run) startFault(s step) *faultRun {
	f := &faultRun{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		ctx, cancel := context.WithTimeout(ctx, s.for_+3*time.Minute)
		defer cancel()
		f.err = r.inject(ctx, s)
		if f.err != nil {
			r.note("fault %s failed: %v", s, f.err)
			return
		}
		r.probeRecovery(ctx, s.fault, r.stats.faultsEnded(s.fault))
	}()
	return f
}

// inject runs one fault to its end.
func (r *run) inject(ctx context.Context, s step) error {
	switch s.fault {
	case faultKill:
		rep := r.replicas[s.n%len(r.replicas)]
		rep.kill()
		wait(ctx, s.for_)
		return rep.start()
	case faultAPIServer:
		return hub.RestartAPIServer(ctx, func() { wait(ctx, min(s.for_, 5*time.Second)) })
	case faultEtcd:
		return hub.PauseEtcd(ctx, s.for_)
	case faultMember:
		return members[memberIndex(s.target)].RestartAPIServer(ctx, func() { wait(ctx, s.for_) })
	case faultPostgres:
		if err := pg.Stop(); err != nil {
			return err
		}
		wait(ctx, s.for_)
		return pg.Start(ctx)
	case faultKCM:
		return hub.PauseControllerManager(ctx, s.for_)
	case faultHookDelete:
		return r.deleteHooksAsTheyFinish(ctx, s)
	case faultHandover:
		if s.comp == nil {
			return nil // no Component to hand over
		}
		rep := r.leaderOf(s.comp.shard)
		rep.kill()
		wait(ctx, s.for_)
		return rep.start()
	case faultCut:
		r.proxy.Cut(s.for_)
		wait(ctx, s.for_)
	case faultDelay:
		r.proxy.Delay(time.Duration(s.n)*time.Millisecond, s.for_)
		wait(ctx, s.for_)
	}
	return nil
}

// wait waits d or until ctx ends: how long a fault lasts.
func wait(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// deleteHooksAsTheyFinish deletes, for the fault's time and up to a
// minute more, each hook Job of a hooks Component (which the soak has just
// upgraded) the moment it is seen Complete.
func (r *run) deleteHooksAsTheyFinish(ctx context.Context, s step) error {
	if s.comp == nil {
		return nil // no hooks Component
	}
	deleted := map[types.UID]bool{}
	end := time.Now().Add(s.for_ + time.Minute)
	for time.Now().Before(end) && ctx.Err() == nil && len(deleted) < 3 {
		var jobs batchv1.JobList
		if err := hub.Client.List(ctx, &jobs, client.InNamespace(r.ns), client.MatchingLabels{
			manifests.Key(r.operator, manifests.LabelOwnerID): manifests.OwnerID("wavekit.dev", "Component", r.ns, s.comp.name)}); err == nil {
			for i := range jobs.Items {
				job := &jobs.Items[i]
				if complete(job) && !deleted[job.UID] && job.DeletionTimestamp == nil {
					uid := job.UID
					if err := hub.Client.Delete(ctx, job, client.Preconditions{UID: &uid}, client.PropagationPolicy("Background")); err == nil {
						deleted[uid] = true
						r.note("deleted hook Job %s as it finished", job.Name)
					}
				}
			}
		}
		wait(ctx, 100*time.Millisecond)
	}
	return nil
}

func complete(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
