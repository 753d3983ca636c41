package bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// measure runs the phases of one case in order.
func (s *scaleRun) measure() {
	s.install()
	s.progress("installed in %.0f s; settling", s.result.Install.Seconds)
	time.Sleep(30 * time.Second) // the last status writes and Events, and Go's heap, settle
	s.result.Installed = s.memory()
	catchUp := s.restart()
	s.progress("restarted: change handled %.1f s after the start, caught up in %.0f s", s.result.Restart.HandledSeconds, catchUp.Seconds())
	s.idle()
	s.resync(catchUp)
	s.progress("resynced in %.0f s", s.result.Resync.Seconds)
	s.moveShard()
	if m := s.result.Move; m != nil {
		s.progress("moved %d Components to shard %s in %.1f s, %.2f writes per object", m.Components, m.To, m.Seconds, m.WritesPerObject)
	}
	s.remove()
	s.stopReplicas("after")
}

// stopReplicas stops every replica, notes its peak RSS and, with
// WAVEKIT_SCALE_LOGS=<dir>, saves its log there (the replicas then log at
// debug level: every pass).
func (s *scaleRun) stopReplicas(when string) {
	for i, r := range s.replicas {
		s.result.PeakMiB[i] = max(s.result.PeakMiB[i], r.op.stop(s.b))
		if dir := os.Getenv("WAVEKIT_SCALE_LOGS"); dir != "" {
			name := filepath.Join(dir, fmt.Sprintf("r%d-s%d-%d-%s.log", s.c.components, s.c.shards, i, when))
			if err := os.WriteFile(name, []byte(r.op.out.String()), 0o644); err != nil {
				s.b.Fatal(err)
			}
		}
	}
}

// install creates the Components, eight at a time, and waits until all
// are Ready.
func (s *scaleRun) install() {
	s.result.Empty = s.memory()
	s.result.PeakMiB = make([]float64, len(s.replicas))
	m := s.mark()
	objects := make([]client.Object, s.c.components)
	for i := range objects {
		objects[i] = s.newComponent(i)
	}
	c := s.client()
	inWorkers(s.b, 8, objects, func(o client.Object) error { return c.Create(s.ctx, o) })
	s.waitAll(func(total, ready int) bool { return ready == s.c.components })
	s.result.Install = s.since(m)
}

// newComponent is Component i of the small chart, labelled for its shard.
func (s *scaleRun) newComponent(i int) *v1alpha1.Component {
	c := &v1alpha1.Component{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: componentName(i)},
		Spec: v1alpha1.ComponentSpec{Source: "small", Values: &apiextensionsv1.JSON{Raw: []byte(`{"version":"0"}`)},
			Intervals: v1alpha1.Intervals{Requeue: &metav1.Duration{Duration: requeueInterval(s.c.components)}}},
	}
	if key := shardKey(s.c.shards, i%s.c.shards); key != "" {
		c.Labels = map[string]string{s.ns + ".wavekit.dev/" + component.LabelShard: key}
	}
	return c
}

func componentName(i int) string { return fmt.Sprintf("app%05d", i) }

// client is a client of the cluster without client-side rate limit.
func (s *scaleRun) client() client.Client {
	cfg := rest.CopyConfig(s.e.Config)
	cfg.QPS = -1
	c, err := client.New(cfg, client.Options{Scheme: s.e.Scheme})
	if err != nil {
		s.b.Fatal(err)
	}
	return c
}

// waitAll polls the benchmark's cache every second until done says so.
func (s *scaleRun) waitAll(done func(total, ready int) bool) {
	last := time.Now()
	for {
		total, ready := s.counts()
		if done(total, ready) {
			return
		}
		if time.Since(last) > 30*time.Second {
			s.progress("%d Components, %d Ready", total, ready)
			last = time.Now()
		}
		if s.ctx.Err() != nil {
			s.b.Fatalf("%d Components, %d Ready: %v", total, ready, s.ctx.Err())
		}
		time.Sleep(time.Second)
	}
}

// restart stops every replica and starts it again with all Components
// Ready, changes one Component as soon as the replicas are ready, and
// waits until every Component has been passed once. It returns how long
// that catch-up took.
func (s *scaleRun) restart() time.Duration {
	s.stopReplicas("before")
	m := s.mark()
	m.reconciles, m.cpu = 0, make([]time.Duration, len(m.cpu)) // the new processes start from 0
	cfg := s.operatorConfig()                                  // a new token
	for _, r := range s.replicas {
		if err := testcluster.WriteKubeconfig(r.proxy.config(cfg.BearerToken), r.op.args[1]); err != nil {
			s.b.Fatal(err)
		}
	}
	start := time.Now()
	for _, r := range s.replicas {
		r.op.start(s.b, s.ctx)
	}
	for _, r := range s.replicas {
		r.op.waitReady(s.b, s.ctx)
	}
	s.result.Restart.ReadySeconds = time.Since(start).Seconds()
	s.result.Restart.ChangeSeconds = s.change(0)
	s.result.Restart.HandledSeconds = time.Since(start).Seconds()
	s.waitPasses(0, s.c.components, 0)
	s.result.Restart.CatchUp = s.since(m)
	return time.Since(start)
}

// idle measures a minute with nothing changing, the memory then, and one
// change with nothing else going on.
func (s *scaleRun) idle() {
	m := s.mark()
	time.Sleep(time.Minute)
	s.result.Idle = s.since(m)
	s.result.Idled = s.memory()
	s.saveProfile("heap", "heap?gc=1")
	m = s.mark()
	s.result.QuietChange.Seconds = s.change(1)
	time.Sleep(2 * time.Second) // its Events and status settle
	s.result.QuietChange.Phase = s.since(m)
}

// resync waits for the resync that follows the catch-up (every Component
// comes back spec.intervals.requeue after its pass) and, while it runs,
// changes one Component at a time, nine times, spread over about as long
// as the catch-up took. It returns once half the Components have been
// passed and then none for five seconds: the resync lasts until its last
// pass, and its CPU is counted per pass. (A few Components come back one
// requeue interval later, which the results show as passes below R.)
func (s *scaleRun) resync(catchUp time.Duration) {
	base := s.reconciles()
	for s.reconciles() == base {
		if s.ctx.Err() != nil {
			s.b.Fatal("no resync came")
		}
		time.Sleep(100 * time.Millisecond)
	}
	m := s.mark()
	go s.saveProfile("resync-cpu", "profile?seconds=20")
	spacing := max(catchUp/10, 100*time.Millisecond)
	for k := range 9 {
		during := s.reconciles() < m.reconciles+float64(s.c.components)
		s.result.ResyncChanges = append(s.result.ResyncChanges, resyncChange{Seconds: s.change(2 + k), DuringResync: during})
		time.Sleep(spacing)
	}
	end := s.waitPasses(m.reconciles, s.c.components/2, 5*time.Second)
	s.result.Resync = s.since(m)
	s.result.Resync.Seconds = end.Sub(m.at).Seconds()
}

// remove deletes every Component, eight deletes at a time as the install
// created them (one DeleteCollection of 3 000 Components outlasted the
// API server's minute for a request), and waits until all are gone.
func (s *scaleRun) remove() {
	m := s.mark()
	objects := make([]client.Object, s.c.components)
	for i := range objects {
		objects[i] = &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: componentName(i)}}
	}
	c := s.client()
	inWorkers(s.b, 8, objects, func(o client.Object) error { return c.Delete(s.ctx, o) })
	s.waitAll(func(total, _ int) bool { return total == 0 })
	s.result.Delete = s.since(m)
}

// change sets a new value on Component i (spread over the shards) and
// returns the seconds until it is Ready at its new generation.
func (s *scaleRun) change(i int) float64 {
	key := types.NamespacedName{Namespace: s.ns, Name: componentName(i * 7919 % s.c.components)}
	s.versions++
	patch := fmt.Appendf(nil, `{"spec":{"values":{"version":"%d"}}}`, s.versions)
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	start := time.Now()
	if err := s.client().Patch(s.ctx, c, client.RawPatch(types.MergePatchType, patch)); err != nil {
		s.b.Fatal(err)
	}
	for {
		cached := &v1alpha1.Component{}
		if err := s.components.Get(s.ctx, key, cached); err == nil && handled(cached, c.Generation) {
			return time.Since(start).Seconds()
		}
		if time.Since(start) > 5*time.Minute {
			s.b.Fatalf("the change of %s was not handled within 5 minutes: %+v", key, cached.Status.Conditions)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitPasses waits until the replicas have reconciled at least passes
// times since base, then none for quiet, nothing waits in their queues and
// no reconcile runs. It returns when the last reconcile it saw finished.
func (s *scaleRun) waitPasses(base float64, passes int, quiet time.Duration) time.Time {
	last, lastAt, told := s.reconciles(), time.Now(), time.Now()
	for {
		if n := s.reconciles(); n != last {
			last, lastAt = n, time.Now()
		}
		if last-base >= float64(passes) && time.Since(lastAt) >= quiet && s.busy() == 0 {
			return lastAt
		}
		if time.Since(told) > 30*time.Second {
			s.progress("%.0f of %d passes", last-base, passes)
			told = time.Now()
		}
		if s.ctx.Err() != nil {
			s.b.Fatalf("%.0f of %d passes: %v", last-base, passes, s.ctx.Err())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
