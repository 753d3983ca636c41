package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/sync/errgroup"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/agent"
	"github.com/wavekit-dev/wavekit/internal/agent/register"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/fleettest"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// BenchmarkSimulatedFleet measures what pulled clusters cost one hub: the
// component-operator binary under the chart's RBAC on a hub (kube-apiserver
// and etcd), behind one counting proxy, and simulated agents behind
// another, each with its own registration and token (simAgent). It reports
// the operator's resident memory with 0, a tenth of and all the clusters
// (WAVEKIT_FLEET_AGENTS, default 1 000) once the set over them is Ready,
// the requests a minute at the hub while nothing changes (the operator's
// and all agents'), and the time from a change of the set to every
// cluster's ComponentWork and back to the set's Ready — with the members
// reporting small inventories, then large ones: the status carries only
// counts and a digest, so the hub's cost must not change. Run it once
// (make bench: -benchtime=1x).
func BenchmarkSimulatedFleet(b *testing.B) {
	size := envInt(b, "WAVEKIT_FLEET_AGENTS", 1000)
	idle := envDuration(b, "WAVEKIT_FLEET_IDLE", 2*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	hub, scheme := startBenchHub(b)
	admin := rest.CopyConfig(hub.Config)
	admin.QPS = -1 // registering a thousand clusters
	hubClient, err := client.New(admin, client.Options{Scheme: scheme})
	must(b, err)
	op, operatorProxy := startOperatorBinary(b, ctx, hubClient, hub.Config)
	agentProxy, err := apicount.StartProxy(hub.Config, nil)
	must(b, err)
	b.Cleanup(agentProxy.Close)

	must(b, hubClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "sim"}}))
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: "sim", Name: "web"}, Spec: v1alpha1.ComponentSetSpec{
		Template:  v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "site", Values: benchValues(b, "v1")}},
		Placement: &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"fleet": "sim"}}},
	}}
	must(b, hubClient.Create(ctx, set))
	sim := &simFleet{}
	sim.objects.Store(3)
	for b.Loop() {
		steps := []int{0, size / 10, size}
		for i, n := range steps {
			if i > 0 {
				sim.grow(b, ctx, hubClient, agentProxy, scheme, steps[i-1], n)
			}
			waitFor(b, ctx, func() bool { return setReadyWith(ctx, hubClient, set, n) })
			b.ReportMetric(settledAnonMiB(op.Pid), fmt.Sprintf("operator-anon-MiB-%d-clusters", n))
		}
		b.ReportMetric(float64(sampleRSS(op.Pid).rssKiB)/1024, fmt.Sprintf("operator-rss-MiB-%d-clusters", size))

		operatorProxy.Counter.Reset()
		agentProxy.Counter.Reset()
		time.Sleep(idle)
		minutes := idle.Minutes()
		b.ReportMetric(float64(sum(operatorProxy.Counter.Verbs()))/minutes, "idle-operator-requests/min")
		b.ReportMetric(float64(sum(agentProxy.Counter.Verbs()))/minutes, "idle-agents-requests/min")
		b.Logf("idle, %s: operator %s", idle, operatorProxy.Counter)
		b.Logf("idle, %s: agents %s", idle, agentProxy.Counter)

		for _, change := range []struct {
			greeting string
			objects  int32
		}{{"v2", 3}, {"v3", 5000}} {
			sim.objects.Store(change.objects)
			operatorProxy.Counter.Reset()
			agentProxy.Counter.Reset()
			reached, ready := sim.change(b, ctx, hubClient, set, change.greeting)
			label := fmt.Sprintf("%d-objects", change.objects)
			b.ReportMetric(reached.Seconds(), "change-to-all-works-s-"+label)
			b.ReportMetric(ready.Seconds(), "change-to-set-ready-s-"+label)
			b.ReportMetric(float64(sum(operatorProxy.Counter.Verbs())), "rollout-operator-requests-"+label)
			b.ReportMetric(settledAnonMiB(op.Pid), "operator-anon-MiB-"+label)
			b.Logf("rollout of %s, members reporting %d objects: operator %s", change.greeting, change.objects, operatorProxy.Counter)
			b.Logf("rollout of %s, members reporting %d objects: agents %s", change.greeting, change.objects, agentProxy.Counter)
		}
		b.Logf("load average at the end: %s", loadAverage())
	}
}

// startBenchHub starts a hub (kube-apiserver and etcd) with the scheme of
// the built-in kinds and wavekit's, stopped when the benchmark ends; the
// benchmark logs nothing.
func startBenchHub(b *testing.B) (*testcluster.Env, *runtime.Scheme) {
	b.Helper()
	ctrl.SetLogger(logr.Discard())
	scheme, err := fleettest.Scheme()
	must(b, err)
	hub, err := testcluster.Start(testcluster.Options{Scheme: scheme})
	must(b, err)
	b.Cleanup(func() { _ = hub.Stop() })
	return hub, scheme
}

// startOperatorBinary runs the component-operator binary on the hub as the
// chart's ServiceAccount, with the chart's RBAC, through a counting proxy.
func startOperatorBinary(b *testing.B, ctx context.Context, c client.Client, hubConfig *rest.Config) (*os.Process, *apicount.Proxy) {
	b.Helper()
	binary, err := operatortest.BuildOperator(testcluster.ModuleRoot(), b.TempDir())
	must(b, err)
	identity, err := fleettest.OperatorIdentity(ctx, c, hubConfig, map[string]any{})
	must(b, err)
	proxy, err := apicount.StartProxy(hubConfig, nil)
	must(b, err)
	b.Cleanup(proxy.Close)
	session, err := operatortest.Operator{Binary: binary, Config: proxy.Config(identity.BearerToken), Dir: b.TempDir(),
		Args: []string{"--source", "site=" + siteSource()}, Out: io.Discard}.Start()
	must(b, err)
	b.Cleanup(func() {
		session.Terminate()
		for deadline := time.Now().Add(10 * time.Second); session.ExitCode() == -1 && time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond)
		}
	})
	return session.Command.Process, proxy
}

// simFleet is the simulated agents: what they report and what they saw.
type simFleet struct {
	agents []*simAgent
	// objects is the inventory every member reports.
	objects atomic.Int32
}

// grow registers the clusters from to to (exclusive) on the hub and starts
// their agents.
func (f *simFleet) grow(b *testing.B, ctx context.Context, hub client.Client, proxy *apicount.Proxy, scheme *runtime.Scheme, from, to int) {
	b.Helper()
	added := make([]*simAgent, to-from)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for i := from; i < to; i++ {
		g.Go(func() error {
			name := fmt.Sprintf("m%04d", i)
			ns, err := register.Register(gctx, hub, register.Cluster{Namespace: "sim", Name: name, Labels: map[string]string{"fleet": "sim"}})
			if err != nil {
				return err
			}
			credential, err := register.Credential(gctx, hub, proxy.Config(""), ns, time.Hour)
			if err != nil {
				return err
			}
			c, err := client.NewWithWatch(credential, client.Options{Scheme: scheme})
			if err != nil {
				return err
			}
			added[i-from] = &simAgent{name: name, namespace: ns, hub: c, fleet: f, kick: make(chan struct{}, 1)}
			return nil
		})
	}
	must(b, g.Wait())
	for _, a := range added {
		go a.run(ctx)
	}
	f.agents = append(f.agents, added...)
}

// change writes greeting to the set's template and returns how long until
// every agent saw it in its ComponentWork, and until the set was Ready.
func (f *simFleet) change(b *testing.B, ctx context.Context, hub client.Client, set *v1alpha1.ComponentSet, greeting string) (time.Duration, time.Duration) {
	b.Helper()
	start := time.Now()
	latest := &v1alpha1.ComponentSet{}
	must(b, hub.Get(ctx, client.ObjectKeyFromObject(set), latest))
	latest.Spec.Template.Spec.Values = benchValues(b, greeting)
	must(b, hub.Update(ctx, latest))
	waitFor(b, ctx, func() bool {
		return !slices.ContainsFunc(f.agents, func(a *simAgent) bool { return a.seen.Load() == nil || *a.seen.Load() != greeting })
	})
	reached := time.Since(start)
	waitFor(b, ctx, func() bool { return setReadyWith(ctx, hub, set, len(f.agents)) })
	return reached, time.Since(start)
}

// simAgent speaks the agent's protocol with the hub as internal/agent
// does — it renews its Lease in its namespace a quarter of the Lease's
// duration apart (one update from the Lease it last wrote), lists and
// watches the ComponentWorks of its namespace, and writes to a
// ComponentWork's status what the agent reports of a Component Ready at
// its generation (conditions, attempt, the inventory's counts, the render
// digest), only when that differs — but without a member cluster: it
// reports each template Ready as soon as it sees it.
type simAgent struct {
	name, namespace string
	hub             client.WithWatch
	fleet           *simFleet
	kick            chan struct{}
	// seen is the greeting of the last template the agent saw.
	seen atomic.Pointer[string]
}

func (a *simAgent) run(ctx context.Context) {
	informer := toolscache.NewSharedIndexInformer(&toolscache.ListWatch{
		ListFunc: func(opts metav1.ListOptions) (runtime.Object, error) {
			list := &v1alpha1.ComponentWorkList{}
			return list, a.hub.List(ctx, list, client.InNamespace(a.namespace), &client.ListOptions{Raw: &opts})
		},
		WatchFunc: func(opts metav1.ListOptions) (watch.Interface, error) {
			return a.hub.Watch(ctx, &v1alpha1.ComponentWorkList{}, client.InNamespace(a.namespace), &client.ListOptions{Raw: &opts})
		},
	}, &v1alpha1.ComponentWork{}, 0, toolscache.Indexers{})
	poke := func() {
		select {
		case a.kick <- struct{}{}:
		default:
		}
	}
	_, _ = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(any) { poke() }, UpdateFunc: func(any, any) { poke() }})
	go informer.Run(ctx.Done())
	go a.heartbeat(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.kick:
			if !a.sync(ctx, informer.GetStore()) {
				time.AfterFunc(time.Second, poke)
			}
		}
	}
}

// sync reports on every ComponentWork of the namespace; false when a write
// failed for another reason than a newer ComponentWork (whose event brings
// the next pass).
func (a *simAgent) sync(ctx context.Context, store toolscache.Store) bool {
	ok := true
	for _, o := range store.List() {
		w := o.(*v1alpha1.ComponentWork)
		var values struct{ Greeting string }
		if w.Spec.Component.Values != nil && json.Unmarshal(w.Spec.Component.Values.Raw, &values) == nil {
			a.seen.Store(&values.Greeting)
		}
		status := simReport(w, a.fleet.objects.Load())
		if w.Status.ObservedGeneration == status.ObservedGeneration && w.Status.Inventory == status.Inventory && w.Status.RenderDigest == status.RenderDigest {
			continue
		}
		w = w.DeepCopy()
		w.Status = status
		if err := a.hub.Status().Update(ctx, w); err != nil && !apierrors.IsConflict(err) {
			ok = false
		}
	}
	return ok
}

// simReport is the status an agent writes for a Component Ready at w's
// generation with objects objects, all Ready.
func simReport(w *v1alpha1.ComponentWork, objects int32) v1alpha1.ComponentWorkStatus {
	now := metav1.Now()
	digest := "sha256:" + strconv.FormatInt(w.Generation, 16) + strings.Repeat("0", 63-len(strconv.FormatInt(w.Generation, 16)))
	out := v1alpha1.ComponentWorkStatus{AgentVersion: "simulated", ObservedGeneration: w.Generation, State: component.StateReady,
		Conditions: []metav1.Condition{{Type: component.ConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: w.Generation,
			Reason: component.ReasonReady, Message: fmt.Sprintf("%d objects Ready", objects), LastTransitionTime: now}},
		Attempt:      &component.Attempt{Generation: w.Generation, RenderDigest: digest, Started: now, Result: "Ready", Finished: &now},
		RenderDigest: digest}
	out.Inventory.Objects, out.Inventory.Ready = objects, objects
	return out
}

// heartbeat renews the agent's Lease as internal/agent's does, starting at
// a random point of its period, as independent agents would.
func (a *simAgent) heartbeat(ctx context.Context) {
	period := agent.DefaultLeaseDuration / 4
	var last *coordinationv1.Lease
	wait := time.Duration(rand.Int64N(int64(period)))
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = period
		now := metav1.NewMicroTime(time.Now())
		if last != nil {
			last.Spec.RenewTime = &now
			if a.hub.Update(ctx, last) != nil {
				last = nil
			}
			continue
		}
		lease := &coordinationv1.Lease{}
		err := a.hub.Get(ctx, client.ObjectKey{Namespace: a.namespace, Name: fleet.AgentLease}, lease)
		lease.Namespace, lease.Name = a.namespace, fleet.AgentLease
		lease.Spec.HolderIdentity = ptr.To(a.name)
		lease.Spec.LeaseDurationSeconds = ptr.To(int32(agent.DefaultLeaseDuration / time.Second))
		lease.Spec.RenewTime, lease.Spec.AcquireTime = &now, &now
		switch {
		case apierrors.IsNotFound(err):
			err = a.hub.Create(ctx, lease)
		case err == nil:
			err = a.hub.Update(ctx, lease)
		}
		if err == nil {
			last = lease
		}
	}
}

// setReadyWith tells whether the set is Ready at its generation over n
// clusters.
func setReadyWith(ctx context.Context, c client.Client, set *v1alpha1.ComponentSet, n int) bool {
	got := &v1alpha1.ComponentSet{}
	return setReady(ctx, c, set) && c.Get(ctx, client.ObjectKeyFromObject(set), got) == nil && got.Status.Rollout.Clusters == int32(n)
}

// procMemory is what /proc says of a process's resident memory, in KiB.
type procMemory struct{ rssKiB, anonKiB int }

func sampleRSS(pid int) procMemory {
	var m procMemory
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return m
	}
	for _, line := range strings.Split(string(status), "\n") {
		name, value, _ := strings.Cut(line, ":")
		kib, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(value), " kB"))
		switch name {
		case "VmRSS":
			m.rssKiB = kib
		case "RssAnon":
			m.anonKiB = kib
		}
	}
	return m
}

// settledAnonMiB waits for the operator to settle (the last status writes
// and Events) and returns the median of its anonymous resident memory
// (the heap and stacks, without the mapped binary) over two seconds.
func settledAnonMiB(pid int) float64 {
	time.Sleep(10 * time.Second)
	samples := make([]int, 0, 20)
	for range 20 {
		samples = append(samples, sampleRSS(pid).anonKiB)
		time.Sleep(100 * time.Millisecond)
	}
	slices.Sort(samples)
	return float64(samples[len(samples)/2]) / 1024
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

func envInt(b *testing.B, name string, fallback int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return fallback
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 10 {
		b.Fatalf("%s=%q: give a number of agents, at least 10", name, v)
	}
	return n
}

func envDuration(b *testing.B, name string, fallback time.Duration) time.Duration {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return fallback
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: give a duration such as 2m", name, v)
	}
	return d
}
