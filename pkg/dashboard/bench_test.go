package dashboard_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/dashboard"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Sizes of the benchmarks: 1000 Components in 20 namespaces, each of 5
// objects in 3 waves; 10 viewers.
const (
	benchComponents = 1000
	benchNamespaces = 20
	benchViewers    = 10
	benchRenders    = 30
)

// benchOnce creates the benchmarks' Components once.
var benchOnce sync.Once

// benchCluster returns the benchmarks' control plane with its Components.
func benchCluster(b *testing.B) *testcluster.Env {
	e := benchEnv.Get(b)
	benchOnce.Do(func() { createBenchComponents(b, e.Client) })
	return e
}

// createBenchComponents creates the Components, eight at a time.
func createBenchComponents(b *testing.B, c client.Client) {
	for i := range benchNamespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%02d", i)}}
		if err := client.IgnoreAlreadyExists(c.Create(context.Background(), ns)); err != nil {
			b.Fatal(err)
		}
	}
	work := make(chan int)
	errs := make(chan error, benchComponents)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range work {
				errs <- createBenchComponent(c, i)
			}
		})
	}
	for i := range benchComponents {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// createBenchComponent creates Component i with a status of 5 objects, its
// last wave held when i is odd.
func createBenchComponent(c client.Client, i int) error {
	ns := fmt.Sprintf("bench-%02d", i%benchNamespaces)
	comp := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("app-%04d", i)}}
	comp.Spec.Source = "app"
	if err := c.Create(context.Background(), comp); err != nil {
		return err
	}
	comp.Status = readyStatus()
	comp.Status.Inventory = nil
	for j := range 5 {
		item := manifests.InventoryItem{Version: "v1", Kind: "ConfigMap", Namespace: ns, Name: fmt.Sprintf("%s-%d", comp.Name, j),
			ApplyOrder: int16(j / 2), Phase: manifests.PhaseReady}
		if i%2 == 1 && j == 4 {
			item.Phase, item.Status = manifests.PhaseCreating, "InProgress"
			comp.Status.State = component.StateProcessing
		}
		comp.Status.Inventory = append(comp.Status.Inventory, item)
	}
	return c.Status().Update(context.Background(), comp)
}

// BenchmarkOverview renders the overview of 1000 Components (no login)
// benchRenders times per iteration and reports the median and the slowest
// server time of one render.
func BenchmarkOverview(b *testing.B) {
	e := benchCluster(b)
	h, err := startPage(context.Background(), e.Config, dashboard.Options{}, b.Cleanup)
	if err != nil {
		b.Fatal(err)
	}
	waitForRows(b, h, "", benchComponents)
	b.ResetTimer()
	var times []time.Duration
	for b.Loop() {
		for range benchRenders {
			start := time.Now()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
			times = append(times, time.Since(start))
			if rec.Code != http.StatusOK {
				b.Fatalf("GET / answered %d", rec.Code)
			}
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms/render-median")
	b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "ms/render-max")
}

// waitForRows waits until the overview (as token's viewer) shows n
// Components.
func waitForRows(b *testing.B, h http.Handler, token string, n int) {
	want := fmt.Sprintf(`<span id="shown">%d</span>`, n)
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if strings.Contains(render(h, "/", token), want) {
			return
		}
		time.Sleep(100 * time.Millisecond) // polling the page's own cache, not the API server
	}
	b.Fatalf("the overview never showed %d Components", n)
}

// render returns the body of GET path as token's viewer.
func render(h http.Handler, path, token string) string {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Body.String()
}

// BenchmarkViewers has 10 viewers, each allowed in 2 namespaces, open the
// overview and a Component page 20 times each while Components change,
// and reports the API requests that caused beyond the cache's first list
// and watch: lists and watches, TokenReviews and SubjectAccessReviews per
// viewer.
func BenchmarkViewers(b *testing.B) {
	e := benchCluster(b)
	counter := apicount.New()
	clientset, err := kubernetes.NewForConfig(counter.Wrap(e.Config))
	if err != nil {
		b.Fatal(err)
	}
	h, err := startPage(context.Background(), counter.Wrap(e.Config),
		dashboard.Options{Auth: dashboard.NewKubernetesAuth(clientset, time.Minute)}, b.Cleanup)
	if err != nil {
		b.Fatal(err)
	}
	tokens := benchViewerTokens(b, e)
	waitForRows(b, h, tokens[0], 2*benchComponents/benchNamespaces)
	for b.Loop() {
		counter.Reset()
		viewBench(b, e.Client, h, tokens)
	}
	b.ReportMetric(float64(counter.Count("list")+counter.Count("watch")), "lists+watches")
	b.ReportMetric(float64(counter.Count("create", "tokenreviews"))/benchViewers, "tokenreviews/viewer")
	b.ReportMetric(float64(counter.Count("create", "subjectaccessreviews"))/benchViewers, "subjectaccessreviews/viewer")
}

// viewBench has every viewer open the overview and a page 20 times while
// 50 Components change.
func viewBench(b *testing.B, c client.Client, h http.Handler, tokens []string) {
	var wg sync.WaitGroup
	for v, token := range tokens {
		wg.Go(func() {
			page := fmt.Sprintf("/c/component.wavekit.dev/bench-%02d/app-%04d", 2*v, 2*v)
			for range 20 {
				if !strings.Contains(render(h, "/", token), "app-") || !strings.Contains(render(h, page, token), "Waves") {
					b.Errorf("viewer %d was not shown its Components", v)
					return
				}
			}
		})
	}
	for i := range 50 {
		var comp v1alpha1.Component
		key := client.ObjectKey{Namespace: fmt.Sprintf("bench-%02d", i%benchNamespaces), Name: fmt.Sprintf("app-%04d", i)}
		if err := c.Get(context.Background(), key, &comp); err == nil {
			comp.Status.Conditions[0].Message = fmt.Sprintf("change %d", time.Now().UnixNano())
			_ = c.Status().Update(context.Background(), &comp)
		}
	}
	wg.Wait()
}

// benchViewerTokens makes the viewers: viewer v may list the Components
// and Events of bench-(2v) and bench-(2v+1).
func benchViewerTokens(b *testing.B, e *testcluster.Env) []string {
	ctx := context.Background()
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{"wavekit.dev"}, Resources: []string{"components"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"list"}},
	}
	tokens := make([]string, benchViewers)
	for v := range benchViewers {
		name := fmt.Sprintf("viewer-%d", v)
		for _, n := range []int{2 * v, 2*v + 1} {
			meta := metav1.ObjectMeta{Namespace: fmt.Sprintf("bench-%02d", n), Name: name}
			role := &rbacv1.Role{ObjectMeta: meta, Rules: rules}
			binding := &rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "bench-00", Name: name}}}
			for _, obj := range []client.Object{role, binding} {
				if err := client.IgnoreAlreadyExists(e.Client.Create(ctx, obj)); err != nil {
					b.Fatal(err)
				}
			}
		}
		cfg, err := operatortest.ServiceAccountConfig(ctx, e.Client, e.Config, "bench-00", name)
		if err != nil {
			b.Fatal(err)
		}
		tokens[v] = cfg.BearerToken
	}
	return tokens
}

// liveChanges is how many status changes BenchmarkLiveUpdate times.
const liveChanges = 20

// BenchmarkLiveUpdate measures how long a change takes to reach an open
// page, among the 1000 Components: from the start of a status write to the
// API server until the page's live stream has told the browser and the
// Component's page, fetched again as the browser does, shows the new
// message. It reports the median and the slowest of liveChanges changes.
func BenchmarkLiveUpdate(b *testing.B) {
	e := benchCluster(b)
	h, err := startPage(context.Background(), e.Config, dashboard.Options{}, b.Cleanup)
	if err != nil {
		b.Fatal(err)
	}
	waitForRows(b, h, "", benchComponents)
	server := httptest.NewServer(h)
	defer server.Close()
	var times []time.Duration
	for b.Loop() {
		times = append(times, liveUpdates(b, e.Client, h, server.URL)...)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms/update-median")
	b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "ms/update-max")
}

// liveUpdates opens the live stream of namespace bench-00 and times
// liveChanges changes of app-0000's Ready message, one after the other.
func liveUpdates(b *testing.B, c client.Client, h http.Handler, base string) []time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	events := liveEvents(b, ctx, base+"/live?namespace=bench-00")
	key := client.ObjectKey{Namespace: "bench-00", Name: "app-0000"}
	var times []time.Duration
	for i := range liveChanges {
		var comp v1alpha1.Component
		if err := c.Get(ctx, key, &comp); err != nil {
			b.Fatal(err)
		}
		message := fmt.Sprintf("live change %d of %d", i, time.Now().UnixNano())
		comp.Status.Conditions[0].Message = message
		start := time.Now()
		if err := c.Status().Update(ctx, &comp); err != nil {
			b.Fatal(err)
		}
		for !strings.Contains(render(h, "/c/component.wavekit.dev/bench-00/app-0000", ""), message) {
			select {
			case <-events:
			case <-ctx.Done():
				b.Fatalf("change %d never reached the page", i)
			}
		}
		times = append(times, time.Since(start))
	}
	return times
}

// liveEvents opens a live stream and returns a channel that receives a
// value for every "change" event on it, until ctx ends.
func liveEvents(b *testing.B, ctx context.Context, url string) <-chan struct{} {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	events := make(chan struct{}, 1)
	go func() {
		defer resp.Body.Close()
		scanner := bufio.NewScanner(resp.Body)
		for scanner.Scan() {
			if scanner.Text() == "event: change" {
				select {
				case events <- struct{}{}:
				default:
				}
			}
		}
	}()
	return events
}
