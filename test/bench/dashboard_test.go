package bench_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testenv"
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
		off := dashboardRun(b, false)
		on := dashboardRun(b, true)
		b.ReportMetric(off, "peak-RSS-MiB-off")
		b.ReportMetric(on, "peak-RSS-MiB-on")
		b.ReportMetric(100*(on-off)/off, "%-more-with-page")
		b.Logf("\n| status page | operator peak RSS |\n| off | %.0f MiB |\n| on, %d viewers | %.0f MiB (%+.1f %%) |", off, dashboardViewers, on, 100*(on-off)/off)
	}
}

// dashboardRun is one run of BenchmarkDashboardRSS; it returns the
// operator's peak RSS.
func dashboardRun(b *testing.B, web bool) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	e := cluster.Get(b)
	ns := newNamespace(b, e, "dashboard")
	addr := freeAddress(b)
	var extra []string
	if web {
		extra = []string{"--web-bind-address", addr}
	}
	p := startOperator(b, ctx, e, map[string]string{"app": appSource(b)}, []string{ns}, extra...)
	viewers, stopViewers := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if web {
		token := dashboardViewer(b, e, ns)
		for range dashboardViewers {
			wg.Go(func() { view(viewers, "http://"+addr, ns, token) })
		}
	}
	for i := range dashboardComponents {
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("app%04d", i)}, Spec: v1alpha1.ComponentSpec{Source: "app"}}
		if err := e.Client.Create(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	waitAllReady(b, ctx, e, ns, dashboardComponents)
	stopViewers()
	wg.Wait()
	return p.stop(b)
}

// dashboardViewer returns the token of a ServiceAccount that may list the
// Components and Events of ns.
func dashboardViewer(b *testing.B, e *testenv.Env, ns string) string {
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

// view is one viewer until ctx ends: a live stream open, and the overview
// and the first Component's page loaded every half second.
func view(ctx context.Context, base, ns, token string) {
	go stream(ctx, base+"/live", token)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, path := range []string{"/", "/c/component.wavekit.dev/" + ns + "/app0000"} {
			_ = load(ctx, base+path, token, io.Discard)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// stream reads the live stream of the page until ctx ends.
func stream(ctx context.Context, url, token string) {
	for ctx.Err() == nil {
		pr, pw := io.Pipe()
		go func() {
			scanner := bufio.NewScanner(pr)
			for scanner.Scan() {
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
