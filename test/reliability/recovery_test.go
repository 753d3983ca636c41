package reliability_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// recoveryBound is how long after its API server (or etcd) is back the
// operator may take to act on a change made then (issue 76: it took a
// minute when the reflectors' backoff had grown, and its retries' too).
const recoveryBound = 5 * time.Second

// recoverySettings are the knobs of the recovery specs, from the
// environment, for longer runs than make test's (make recovery):
// WAVEKIT_RECOVERY_ROUNDS faults of each kind (default 10 restarts of
// kube-apiserver and 3 stops of etcd), WAVEKIT_RECOVERY_STOP kill (the
// default), graceful or both (alternately), WAVEKIT_RECOVERY_LOAD=0 for
// no load.
type recoverySettings struct {
	restarts, etcdStops int
	stops               []testcluster.RestartOptions
	load                bool
}

func recoveryConfig() recoverySettings {
	s := recoverySettings{restarts: 10, etcdStops: 3, stops: []testcluster.RestartOptions{{Kill: true}}, load: true}
	if n, err := strconv.Atoi(os.Getenv("WAVEKIT_RECOVERY_ROUNDS")); err == nil && n > 0 {
		s.restarts, s.etcdStops = n, n
	}
	switch os.Getenv("WAVEKIT_RECOVERY_STOP") {
	case "graceful":
		s.stops = []testcluster.RestartOptions{{}}
	case "both":
		s.stops = []testcluster.RestartOptions{{Kill: true}, {}}
	}
	s.load = os.Getenv("WAVEKIT_RECOVERY_LOAD") != "0"
	return s
}

func (s recoverySettings) describe(kind string) string {
	load := "under load"
	if !s.load {
		load = "without load"
	}
	return kind + ", " + load
}

// The operator binary serves nine Components of one ConfigMap each: three
// that the test keeps changing (load), one it changes after each fault
// (spec) and five whose ConfigMap it edits by hand after each, in turn (a
// ConfigMap corrected more than 5 times a minute would meet the write-loop
// guard). kube-apiserver is killed and started again at once, ten times,
// and etcd stopped for 10 s, while the load changes; right after each,
// both changes must be acted on within recoveryBound, and no pass may have
// failed into controller-runtime's backoff.
var _ = Describe("recovery after kube-apiserver or etcd returns", Ordered, func() {
	const (
		ns     = "recovery"
		edited = 5
	)
	ctx := context.Background()
	settings := recoveryConfig()
	var (
		op              *binaryOperator
		metrics, probes string
	)
	component := func(name string) *v1alpha1.Component { return newComponent(ns, name, "recover", nil) }

	BeforeAll(func() {
		newNamespace(ctx, ns)
		op = newBinaryOperator()
		metrics, probes = freeAddress(), freeAddress()
		op.start("--source", "recover="+testdata("configmap"), "--metrics-bind-address", metrics, "--metrics-secure=false",
			"--health-probe-bind-address", probes)
		names := []string{"load-0", "load-1", "load-2", "spec"}
		for i := range edited {
			names = append(names, fmt.Sprintf("edit-%d", i))
		}
		for _, name := range names {
			Expect(env.Client.Create(ctx, newComponent(ns, name, "recover", map[string]any{"greeting": "hello"}))).To(Succeed())
		}
		for _, name := range names {
			eventually(func() string { return readyCondition(ctx, component(name)) }).Should(HavePrefix("True/Ready"))
		}
	})

	// recoverFrom makes a fault with fault (which returns once the server,
	// or etcd, is back), then a change and a hand edit, and returns how
	// long each took to be acted on from the server's return.
	recoverFrom := func(round int, fault func()) (change, edit time.Duration) {
		GinkgoHelper()
		fault()
		back := time.Now()
		greeting := fmt.Sprintf("round %d", round)
		changeValues(ctx, component("spec"), map[string]any{"greeting": greeting})
		editName := fmt.Sprintf("edit-%d-config", round%edited)
		eventually(func() error {
			cm := getConfigMap(ctx, ns, editName)
			patch := client.MergeFrom(cm.DeepCopy())
			cm.Data["greeting"] = "edited by hand"
			return env.Client.Patch(ctx, cm, patch)
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			if change == 0 && getConfigMap(ctx, ns, "spec-config").Data["greeting"] == greeting {
				change = time.Since(back)
			}
			if edit == 0 && getConfigMap(ctx, ns, editName).Data["greeting"] == "hello" {
				edit = time.Since(back)
			}
			g.Expect(change).NotTo(BeZero(), "the change of spec")
			g.Expect(edit).NotTo(BeZero(), "the hand edit of %s", editName)
		}).WithTimeout(time.Until(back.Add(recoveryBound))).WithPolling(20*time.Millisecond).Should(Succeed(),
			"round %d: not acted on within %s of the return", round, recoveryBound)
		return change, edit
	}

	// rounds runs n rounds of recoverFrom, while the load Components
	// change unless settings say no load, checks what the operator's
	// metrics counted meanwhile and reports the times.
	rounds := func(what string, n int, fault func(round int)) {
		GinkgoHelper()
		before := scrape(metrics)
		stop := func() {}
		if settings.load {
			stop = loadChanges(ctx, ns, "load-0", "load-1", "load-2")
		}
		var took []time.Duration
		for round := range n {
			change, edit := recoverFrom(round, func() { fault(round) })
			GinkgoWriter.Printf("round %d: change acted on after %s, hand edit after %s\n", round, change.Round(time.Millisecond), edit.Round(time.Millisecond))
			took = append(took, max(change, edit))
		}
		stop()
		after := scrape(metrics)
		Expect(after.sum("controller_runtime_reconcile_errors_total", `controller="crash.wavekit.dev"`)).
			To(Equal(before.sum("controller_runtime_reconcile_errors_total", `controller="crash.wavekit.dev"`)),
				"a pass failed into the workqueue's backoff")
		// Every watch is back within the bound too: a watch of a resource
		// that nothing changed may come back after the change was acted on.
		Eventually(func() float64 { return scrape(metrics).sum("wavekit_watches_lost") }).
			WithTimeout(recoveryBound).WithPolling(50*time.Millisecond).Should(BeZero(), func() string {
			reason, _ := get("http://" + probes + "/readyz/watches")
			return "a watch is still lost: " + reason
		})
		eventually(func() error { _, err := get("http://" + probes + "/readyz"); return err }).Should(Succeed())
		slices.Sort(took)
		// One line per run, for docs/reliability.md (make recovery).
		GinkgoWriter.Printf("recovery %s: median %s, p99 %s, max %s over %d\n", settings.describe(what), took[len(took)/2].Round(time.Millisecond),
			took[(len(took)*99+99)/100-1].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond), len(took))
	}

	It("acts on a change and a hand edit within 5 s of kube-apiserver's return, each of ten kills, and says it was not ready meanwhile", func() {
		before := scrape(metrics)
		what := map[bool]string{true: "kube-apiserver killed", false: "kube-apiserver stopped"}[settings.stops[0].Kill]
		if len(settings.stops) > 1 {
			what = "kube-apiserver killed or stopped"
		}
		rounds(what, settings.restarts, func(round int) {
			var readyz error
			var reason string
			Expect(env.RestartAPIServerWith(ctx, settings.stops[round%len(settings.stops)], func() {
				if round == 0 { // the watches are lost: /readyz says so until they are back
					readyz = waitNotReady(probes)
					reason, _ = get("http://" + probes + "/readyz/watches")
				}
			})).To(Succeed())
			if round == 0 {
				Expect(readyz).To(MatchError(ContainSubstring("[-]watches failed")), "/readyz while kube-apiserver was away")
				Expect(reason).To(MatchRegexp(`watches of \S+ lost since \S+, resyncing: .*Component\.wavekit\.dev`),
					"/readyz/watches names what is lost")
			}
		})
		after := scrape(metrics)
		reconnects := after.sum("wavekit_watch_reconnect_seconds_count", `resource="Component.wavekit.dev"`) -
			before.sum("wavekit_watch_reconnect_seconds_count", `resource="Component.wavekit.dev"`)
		Expect(reconnects).To(BeNumerically(">=", settings.restarts), "the Components' watch was lost and came back at each restart")
		Expect(after.sum("wavekit_watch_last_reconnect_seconds", `resource="Component.wavekit.dev"`)).
			To(And(BeNumerically(">", 0), BeNumerically("<", 30)), "how long the Components' watch took to come back last")
		Expect(after.sum("wavekit_watch_last_event_timestamp_seconds", `resource="ConfigMap"`)).
			To(BeNumerically(">", float64(time.Now().Add(-time.Minute).Unix())), "the ConfigMaps' watch delivers")
	})

	It("acts on a change and a hand edit within 5 s of etcd's return after it stopped for 10 s", func() {
		rounds("etcd stopped 10 s", settings.etcdStops, func(int) { Expect(env.PauseEtcd(ctx, 10*time.Second)).To(Succeed()) })
	})
})

// loadChanges changes the greeting of the named Components of ns every
// 200 ms, ignoring failures (the API server may be away), until the
// returned stop is called.
func loadChanges(ctx context.Context, ns string, names ...string) (stop func()) {
	return changeInTurn(ctx, ns, 200*time.Millisecond, func(i int) string { return fmt.Sprintf("load %d", i) }, names...)
}

// changeInTurn sets the greeting of the named Components of ns, one after
// the other, to greeting(i) every period, ignoring failures, until the
// returned stop is called.
func changeInTurn(ctx context.Context, ns string, period time.Duration, greeting func(i int) string, names ...string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(period):
			}
			c := &v1alpha1.Component{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: names[i%len(names)]}, c); err != nil {
				continue
			}
			setValues(c, map[string]any{"greeting": greeting(i)})
			_ = env.Client.Update(ctx, c)
		}
	})
	return func() { close(done); wg.Wait() }
}

// waitNotReady polls the operator's /readyz at probes until it fails (it
// returns that answer) or 30 s pass (nil).
func waitNotReady(probes string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		body, err := get("http://" + probes + "/readyz?verbose")
		if err != nil && body != "" {
			return fmt.Errorf("%w: %s", err, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// A Component whose target cluster's API server is away for 30 s while its
// values change: every pass fails meanwhile. Such a failure is the server's
// absence, not the Component's: its retry backoff must not grow (with
// controller-runtime's, 30 s of failures put the next try tens of seconds
// after the server's return), and it is reconciled within recoveryBound of
// the return.
var _ = Describe("a Component whose passes failed throughout its API server's 30 s outage", Ordered, func() {
	const ns = "outage"
	ctx := context.Background()
	var (
		op      *binaryOperator
		member  *testcluster.Env
		metrics string
		c       *v1alpha1.Component
	)
	memberGreeting := func() string {
		var cm corev1.ConfigMap
		if err := member.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "app-config"}, &cm); err != nil {
			return err.Error()
		}
		return cm.Data["greeting"]
	}

	BeforeAll(func() {
		clusters, err := testcluster.StartClusters(1)
		Expect(err).NotTo(HaveOccurred())
		member = clusters[0]
		DeferCleanup(func() { Expect(member.Stop()).To(Succeed()) })
		newNamespace(ctx, ns)
		Expect(member.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		secret, err := member.KubeconfigSecret(ns, "member", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Client.Create(ctx, secret)).To(Succeed())
		op = newBinaryOperator()
		metrics = freeAddress()
		op.start("--source", "recover="+testdata("configmap"), "--metrics-bind-address", metrics, "--metrics-secure=false")
		c = newComponent(ns, "app", "recover", map[string]any{"greeting": "hello"})
		c.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: secret.Name}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		Expect(memberGreeting()).To(Equal("hello"))
	})

	It("waits for the server rather than a grown backoff, and is reconciled within 5 s of its return", func() {
		before := scrape(metrics)
		const awaiting = "wavekit_components_awaiting_api_server"
		var downFailures []string
		g := NewGomega(func(message string, _ ...int) { downFailures = append(downFailures, message) })
		Expect(member.RestartAPIServerWith(ctx, testcluster.RestartOptions{Kill: true}, func() {
			outage := time.Now()
			changeValues(ctx, c, map[string]any{"greeting": "changed while away"})
			g.Eventually(func() string { return readyCondition(ctx, c) }).WithTimeout(20*time.Second).WithPolling(100*time.Millisecond).
				Should(ContainSubstring("TargetUnreachable"), "the pass did not fail")
			g.Eventually(func() float64 { return scrape(metrics).sum(awaiting, `operator="crash.wavekit.dev"`) }).
				WithTimeout(10*time.Second).Should(Equal(1.0), "the Component does not wait for its server")
			time.Sleep(time.Until(outage.Add(30 * time.Second)))
		})).To(Succeed())
		back := time.Now()

		Eventually(memberGreeting).WithTimeout(recoveryBound).WithPolling(20*time.Millisecond).
			Should(Equal("changed while away"), "not reconciled within %s of the return", recoveryBound)
		GinkgoWriter.Printf("reconciled %s after the return\n", time.Since(back).Round(time.Millisecond))
		Expect(downFailures).To(BeEmpty())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		eventually(func() float64 { return scrape(metrics).sum(awaiting, `operator="crash.wavekit.dev"`) }).Should(BeZero())
		after := scrape(metrics)
		// An error returned to controller-runtime is what its rate limiter
		// backs off on (the priority queue's workqueue_retries_total also
		// counts every requeue after a delay, so it tells nothing here).
		const errors = "controller_runtime_reconcile_errors_total"
		Expect(after.sum(errors, `controller="crash.wavekit.dev"`)).To(Equal(before.sum(errors, `controller="crash.wavekit.dev"`)),
			"the outage's failures went into the workqueue's backoff")
	})
})
