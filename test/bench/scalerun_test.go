package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// scaleRun is one case of BenchmarkScaleCost under way.
type scaleRun struct {
	b        *testing.B
	ctx      context.Context
	c        scaleCase
	e        *testcluster.Env
	ns       string
	replicas []*replica
	// components is the benchmark's own cache of the Components, which it
	// polls for their state instead of listing them from the API server.
	components cache.Cache
	versions   int
	result     scaleResult
}

// replica is one operator process (one shard) and what measures it.
type replica struct {
	key     string
	proxy   *apiProxy
	metrics string
	pprof   string
	op      *operatorProcess
}

// operatorAccount is the name of the operator's ServiceAccount that the
// chart's RBAC binds.
const operatorAccount = "operator"

// newScaleRun installs the chart's RBAC in a namespace of its own, starts
// one operator process per shard, each behind its counting proxy, and the
// benchmark's cache of Components.
func newScaleRun(b *testing.B, c scaleCase) *scaleRun {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Hour)
	b.Cleanup(cancel)
	e := scaleCluster.Get(b)
	s := &scaleRun{b: b, ctx: ctx, c: c, e: e, ns: newNamespace(b, e, "scale")}
	s.result.Case, s.result.OperatorArgs = c.String(), os.Getenv("WAVEKIT_SCALE_OPERATOR_ARGS")
	if s.result.OperatorArgs != "" {
		s.result.Case += " " + s.result.OperatorArgs
	}
	s.result.Components, s.result.Shards, s.result.Deployment = c.components, c.shards, c.deployment
	verbs := []any{"get", "list", "watch", "create", "update", "patch", "delete"}
	err := operatortest.ApplyRBAC(ctx, e.Client, testcluster.ModuleRoot(), s.ns, s.ns, map[string]any{
		"serviceAccount": map[string]any{"name": operatorAccount},
		"rbac": map[string]any{"extraRules": []any{
			map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps", "secrets", "serviceaccounts"}, "verbs": verbs},
			map[string]any{"apiGroups": []any{"apps"}, "resources": []any{"deployments"}, "verbs": verbs},
		}},
	})
	if err != nil {
		b.Fatal(err)
	}
	chart := smallChart(b, c.deployment)
	for i := range c.shards {
		s.replicas = append(s.replicas, s.startReplica(shardKey(c.shards, i), chart))
	}
	s.components = componentCache(b, ctx, e, s.ns)
	return s
}

// shardKey is the --shard of replica i of shards: none for one replica.
func shardKey(shards, i int) string {
	if shards == 1 {
		return ""
	}
	return fmt.Sprintf("s%d", i)
}

// startReplica starts the operator of one shard as the chart's
// ServiceAccount, through a counting proxy, with plain-HTTP metrics.
func (s *scaleRun) startReplica(key, chart string) *replica {
	r := &replica{key: key, metrics: freeAddress(s.b)}
	cfg := s.operatorConfig()
	r.proxy = startAPIProxy(s.b, cfg)
	through := r.proxy.config(cfg.BearerToken)
	args := []string{"--shard", key, "--metrics-bind-address", r.metrics, "--metrics-secure=false"}
	args = append(args, strings.Fields(s.result.OperatorArgs)...)
	if os.Getenv("WAVEKIT_SCALE_LOGS") != "" {
		args = append(args, "--zap-log-level=debug")
	}
	if os.Getenv("WAVEKIT_SCALE_PROFILE") != "" {
		r.pprof = freeAddress(s.b)
		args = append(args, "--pprof-bind-address", r.pprof)
	}
	r.op = startOperatorAs(s.b, s.ctx, through, map[string]string{"small": chart}, []string{s.ns}, args...)
	return r
}

// operatorConfig is an identity of the operator's ServiceAccount, with a
// token of an hour.
func (s *scaleRun) operatorConfig() *rest.Config {
	cfg, err := operatortest.ServiceAccountConfig(s.ctx, s.e.Client, s.e.Config, s.ns, operatorAccount)
	if err != nil {
		s.b.Fatal(err)
	}
	return cfg
}

// componentCache starts an informer cache of the Components of ns.
func componentCache(b *testing.B, ctx context.Context, e *testcluster.Env, ns string) cache.Cache {
	c, err := cache.New(e.Config, cache.Options{Scheme: e.Scheme, DefaultNamespaces: map[string]cache.Config{ns: {}}})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.GetInformer(ctx, &v1alpha1.Component{}); err != nil {
		b.Fatal(err)
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		b.Fatal("the cache of Components did not sync")
	}
	return c
}

// counts returns how many Components there are and how many are Ready at
// their generation.
func (s *scaleRun) counts() (total, ready int) {
	var list v1alpha1.ComponentList
	if err := s.components.List(s.ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		s.b.Fatal(err)
	}
	for _, c := range list.Items {
		if handled(&c, c.Generation) {
			ready++
		}
	}
	return len(list.Items), ready
}

// handled is whether c is Ready at generation or later.
func handled(c *v1alpha1.Component, generation int64) bool {
	return c.Status.State == component.StateReady && c.Status.ObservedGeneration >= generation && c.Generation >= generation
}

// progress prints a line to the terminal of whoever waits for a long run.
func (s *scaleRun) progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s %s: %s\n", time.Now().Format("15:04:05"), s.c, fmt.Sprintf(format, args...))
}

// saveProfile saves profile (heap, or profile?seconds=N for CPU) of every
// replica into WAVEKIT_SCALE_PROFILE, when it is set.
func (s *scaleRun) saveProfile(name, profile string) {
	dir := os.Getenv("WAVEKIT_SCALE_PROFILE")
	if dir == "" {
		return
	}
	for i, r := range s.replicas {
		file := filepath.Join(dir, fmt.Sprintf("%s-r%d-s%d-%d.pb.gz", name, s.c.components, s.c.shards, i))
		out, err := os.Create(file)
		if err != nil {
			s.b.Fatal(err)
		}
		if err := load(s.ctx, "http://"+r.pprof+"/debug/pprof/"+profile, "", out); err != nil {
			s.b.Logf("profile %s of replica %d: %v", profile, i, err)
		}
		_ = out.Close()
	}
}

// scrapeSum sums the samples of the metric name whose labels contain
// labels, on the metrics endpoint at address.
func scrapeSum(address, name, labels string) (float64, error) {
	resp, err := http.Get("http://" + address + "/metrics")
	if err != nil {
		return 0, fmt.Errorf("scraping %s: %w", address, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, fmt.Errorf("scraping %s: %w", address, err)
	}
	return sumSamples(string(body), name, labels), nil
}

// writeJSON replaces the entry of the same case in the JSON file path.
func writeJSON(path string, result scaleResult) error {
	var all []scaleResult
	if data, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(data, &all); err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
	}
	kept := all[:0]
	for _, r := range all {
		if r.Case != result.Case {
			kept = append(kept, r)
		}
	}
	data, err := json.MarshalIndent(append(kept, result), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
