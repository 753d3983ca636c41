package bench_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// Sizes of BenchmarkDashboardRSS.
const (
	dashboardComponents = 300
	dashboardViewers    = 10
)

// BenchmarkDashboardRSS runs the operator on 300 Components of appSource
// twice, on the whole local cluster: without the status page, then with it
// (--web-bind-address) and 10 viewers, each with a live stream open and
// loading the overview and a Component page every half second, from
// before the first Component is created until all are Ready. It reports
// the operator's peak RSS of both runs and how much more the page took.
func BenchmarkDashboardRSS(b *testing.B) {
	for range b.N {
		off, offAnon := dashboardRun(b, false)
		on, onAnon := dashboardRun(b, true)
		b.ReportMetric(off, "peak-RSS-MiB-off")
		b.ReportMetric(on, "peak-RSS-MiB-on")
		b.ReportMetric(100*(on-off)/off, "%-more-with-page")
		b.ReportMetric(100*(onAnon-offAnon)/offAnon, "%-more-anon-with-page")
		b.Logf("\n| status page | operator peak RSS | peak anonymous RSS |\n| off | %.0f MiB | %.0f MiB |\n| on, %d viewers | %.0f MiB (%+.1f %%) | %.0f MiB (%+.1f %%) |",
			off, offAnon, dashboardViewers, on, 100*(on-off)/off, onAnon, 100*(onAnon-offAnon)/offAnon)
	}
}

// dashboardRun is one run of BenchmarkDashboardRSS; it returns the
// operator's peak RSS and peak anonymous RSS, in MiB.
func dashboardRun(b *testing.B, web bool) (rss, anon float64) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	e := cluster.Get(b)
	ns := newNamespace(b, e, "dashboard")
	addr := freeAddress(b)
	var extra []string
	if web {
		extra = []string{"--web-bind-address", addr}
	}
	heapFile, profiling := os.LookupEnv("WAVEKIT_BENCH_HEAP")
	pprofAddr := freeAddress(b)
	if profiling {
		extra = append(extra, "--pprof-bind-address", pprofAddr)
	}
	p := startOperator(b, ctx, e, map[string]string{"app": appSource(b)}, []string{ns}, extra...)
	peakAnon := sampleAnonRSS(ctx, p.cmd.Process.Pid)
	viewers, stopViewers := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if web {
		token := dashboardViewer(b, e, ns)
		for v := range dashboardViewers {
			wg.Go(func() { view(viewers, "http://"+addr, ns, token, v) })
		}
	}
	for i := range dashboardComponents {
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("app%04d", i)}, Spec: v1alpha1.ComponentSpec{Source: "app"}}
		if err := e.Client.Create(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	waitAllReady(b, ctx, e, ns, dashboardComponents)
	if profiling {
		saveHeap(b, ctx, pprofAddr, fmt.Sprintf("%s.web-%t", heapFile, web))
	}
	stopViewers()
	wg.Wait()
	anon = peakAnon()
	return p.stop(b), anon
}

// sampleAnonRSS samples the anonymous resident memory of process pid
// (RssAnon in /proc: the heap and stacks, not the binary's pages, whose
// residence depends on the machine's other work) every 50 ms until the
// returned function is called; that function returns the largest sample,
// in MiB.
func sampleAnonRSS(ctx context.Context, pid int) func() float64 {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan float64)
	go func() {
		var peak float64
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			if kib := sampleProcess(pid).anonKiB; kib/1024 > peak {
				peak = kib / 1024
			}
			select {
			case <-ctx.Done():
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() float64 {
		cancel()
		return <-done
	}
}

// saveHeap writes the operator's heap profile to file, for
// WAVEKIT_BENCH_HEAP=<file prefix>: what the page keeps in memory.
func saveHeap(b *testing.B, ctx context.Context, addr, file string) {
	saveProfile(b, ctx, addr, "heap?gc=1", file)
}

// saveProfile writes the operator's /debug/pprof/<profile> to file.
func saveProfile(b *testing.B, ctx context.Context, addr, profile, file string) {
	out, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	if err := load(ctx, "http://"+addr+"/debug/pprof/"+profile, "", out); err != nil {
		b.Fatal(err)
	}
}

// dashboardViewer returns the token of a ServiceAccount that may list the
// Components and Events of ns.
func dashboardViewer(b *testing.B, e *testcluster.Env, ns string) string {
	meta := metav1.ObjectMeta{Namespace: ns, Name: "viewer"}
	role := &rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"wavekit.dev"}, Resources: []string{"components"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"list"}},
	}}
	binding := &rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "viewer"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: "viewer"}}}
	if err := e.Client.Create(context.Background(), role); err != nil {
		b.Fatal(err)
	}
	if err := e.Client.Create(context.Background(), binding); err != nil {
		b.Fatal(err)
	}
	cfg, err := operatortest.ServiceAccountConfig(context.Background(), e.Client, e.Config, ns, "viewer")
	if err != nil {
		b.Fatal(err)
	}
	return cfg.BearerToken
}

// view is one viewer until ctx ends, as the page's script behaves in a
// browser: it loads its page (the overview for even viewers, the first
// Component's page for odd ones), opens the page's live stream, and loads
// the page again on every change the stream announces.
func view(ctx context.Context, base, ns, token string, v int) {
	page, live := "/", "/live"
	if v%2 == 1 {
		page, live = "/c/component.wavekit.dev/"+ns+"/app0000", "/live?namespace="+ns
	}
	changes := make(chan struct{}, 1)
	go stream(ctx, base+live, token, changes)
	for {
		_ = load(ctx, base+page, token, io.Discard)
		select {
		case <-ctx.Done():
			return
		case <-changes:
		}
	}
}

// stream reads the live stream of the page until ctx ends, telling
// changes of every change event, and opens it again when it ends.
func stream(ctx context.Context, url, token string, changes chan<- struct{}) {
	for ctx.Err() == nil {
		pr, pw := io.Pipe()
		go func() {
			scanner := bufio.NewScanner(pr)
			for scanner.Scan() {
				if scanner.Text() == "event: change" {
					select {
					case changes <- struct{}{}:
					default:
					}
				}
			}
		}()
		_ = load(ctx, url, token, pw)
		_ = pw.Close()
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// load GETs url with token and copies the body to w.
func load(ctx context.Context, url, token string, w io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(w, resp.Body)
	return err
}
