package bench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// definitionGroup is the group the benchmarks define kinds in.
const definitionGroup = "bench.example.com"

// BenchmarkDefinitionServed measures the time from creating a
// ComponentDefinition (of a served template folder with a
// values.schema.json) to its kind being served by the API server, and to
// the first instance of it Ready, for ten kinds one after the other.
func BenchmarkDefinitionServed(b *testing.B) {
	for range b.N {
		d := newDefinitionRun(b, "served")
		var served, firstReady []time.Duration
		for i := range 10 {
			kind := fmt.Sprintf("Served%d", i)
			start := time.Now()
			d.define(kind)
			d.waitServed(kind)
			served = append(served, time.Since(start))
			d.createInstances(kind, 1)
			d.waitReady(kind, 1)
			firstReady = append(firstReady, time.Since(start))
		}
		b.ReportMetric(float64(median(served).Milliseconds()), "served-ms")
		b.ReportMetric(float64(median(firstReady).Milliseconds()), "first-instance-ready-ms")
		b.Logf("\n| definition → kind served (median of 10) | definition → first instance Ready |\n| %s | %s |",
			median(served).Round(time.Millisecond), median(firstReady).Round(time.Millisecond))
		d.finish()
	}
}

// BenchmarkDefinitionsVsComponents compares one operator serving 50 defined
// kinds of 20 instances each with the same operator serving 1 000
// Components of the same folder: the time to install them (until every
// instance is Ready and every definition's status counts them), then, over
// a minute with nothing changing, the operator's CPU, its memory and the
// requests it sends (every request, counted by a proxy).
func BenchmarkDefinitionsVsComponents(b *testing.B) {
	for _, c := range []struct {
		name             string
		kinds, instances int
	}{{"kinds=50,instances=20", 50, 20}, {"components=1000", 0, 1000}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				d := newDefinitionRun(b, "many")
				start := time.Now()
				if c.kinds == 0 {
					d.createComponents(c.instances)
					d.waitComponentsReady(c.instances)
				} else {
					for k := range c.kinds {
						d.define(fmt.Sprintf("Many%d", k))
					}
					for k := range c.kinds {
						kind := fmt.Sprintf("Many%d", k)
						d.waitServed(kind)
						d.createInstances(kind, c.instances)
					}
					for k := range c.kinds {
						d.waitReady(fmt.Sprintf("Many%d", k), c.instances)
					}
					d.waitCounted(c.instances)
				}
				install := time.Since(start)
				installed := d.proxy.snapshot()
				before := sampleProcess(d.op.cmd.Process.Pid)
				time.Sleep(time.Minute)
				after := sampleProcess(d.op.cmd.Process.Pid)
				d.saveProfiles(strings.ReplaceAll(c.name, ",", "-"))
				idle := d.proxy.snapshot().minus(installed)
				b.ReportMetric(install.Seconds(), "install-s")
				b.ReportMetric(float64(installed.nonWatch()), "install-requests")
				b.ReportMetric((after.cpu - before.cpu).Seconds(), "idle-minute-cpu-s")
				b.ReportMetric(float64(idle.nonWatch()), "idle-minute-requests")
				b.ReportMetric(after.rssKiB/1024, "idle-RSS-MiB")
				b.ReportMetric(after.peakKiB/1024, "peak-RSS-MiB")
				b.Logf("\n| case | install | requests to install | idle minute: CPU, requests | RSS idle / peak |\n"+
					"| %s | %s | %d | %.2f s, %d (%s) | %.0f / %.0f MiB |", c.name, install.Round(100*time.Millisecond), installed.nonWatch(),
					(after.cpu - before.cpu).Seconds(), idle.nonWatch(), idle, after.rssKiB/1024, after.peakKiB/1024)
				d.finish()
			}
		})
	}
}

// definitionRun is one operator, with definitions on, serving a template
// folder of one ConfigMap with a values.schema.json, in a namespace of
// its own.
type definitionRun struct {
	b      *testing.B
	ctx    context.Context
	e      *testcluster.Env
	ns     string
	op     *operatorProcess
	proxy  *apiProxy
	kinds  []string
	admins client.Client
	pprof  string // the operator's pprof address, for WAVEKIT_BENCH_HEAP
}

func newDefinitionRun(b *testing.B, prefix string) *definitionRun {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	b.Cleanup(cancel)
	e := env.Get(b)
	d := &definitionRun{b: b, ctx: ctx, e: e, ns: newNamespace(b, e, prefix)}
	c, err := client.New(e.Config, client.Options{Scheme: e.Scheme})
	if err != nil {
		b.Fatal(err)
	}
	d.admins = c
	err = operatortest.ApplyRBAC(ctx, e.Client, testcluster.ModuleRoot(), d.ns, d.ns, map[string]any{
		"serviceAccount": map[string]any{"name": operatorAccount},
		"definitions":    map[string]any{"enabled": true, "groups": []any{definitionGroup}},
		"rbac": map[string]any{"extraRules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps", "secrets"},
			"verbs": []any{"get", "list", "watch", "create", "update", "patch", "delete"}}}},
	})
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := operatortest.ServiceAccountConfig(ctx, e.Client, e.Config, d.ns, operatorAccount)
	if err != nil {
		b.Fatal(err)
	}
	d.proxy = startAPIProxy(b, cfg)
	extra := []string{"--definitions", "--definition-groups", definitionGroup}
	if _, profiling := os.LookupEnv("WAVEKIT_BENCH_HEAP"); profiling {
		d.pprof = freeAddress(b)
		extra = append(extra, "--pprof-bind-address", d.pprof)
	}
	d.op = startOperatorAs(b, ctx, d.proxy.config(cfg.BearerToken), map[string]string{"cm": schemaFolder(b)}, []string{d.ns}, extra...)
	return d
}

// saveProfiles writes the operator's heap profile, its heap's text form
// (which ends with the runtime's MemStats: stacks, heap in use, released)
// and its goroutines (grouped, and each with what created it) to
// WAVEKIT_BENCH_HEAP=<file prefix>.<name>.*, when
// it is set: where an idle operator's memory goes.
func (d *definitionRun) saveProfiles(name string) {
	prefix, profiling := os.LookupEnv("WAVEKIT_BENCH_HEAP")
	if !profiling {
		return
	}
	for suffix, profile := range map[string]string{"heap.pb.gz": "heap?gc=1", "heap.txt": "heap?gc=1&debug=1", "goroutines.txt": "goroutine?debug=1", "goroutines-full.txt": "goroutine?debug=2"} {
		saveProfile(d.b, d.ctx, d.pprof, profile, prefix+"."+name+"."+suffix)
	}
}

// schemaFolder writes a template folder of one ConfigMap, whose value a
// values.schema.json types.
func schemaFolder(b *testing.B) string {
	dir := b.TempDir()
	files := map[string]string{
		"configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}-cm\ndata:\n  value: {{ .Values.value | quote }}\n",
		"values.schema.json": `{"type": "object", "additionalProperties": false, "required": ["value"],
  "properties": {"value": {"type": "string", "maxLength": 63, "description": "what the ConfigMap holds"}}}`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func plural(kind string) string { return strings.ToLower(kind) + "s" }

func (d *definitionRun) gvk(kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: definitionGroup, Version: "v1alpha1", Kind: kind}
}

// define creates the definition of kind, of the served folder.
func (d *definitionRun) define(kind string) {
	def := &v1alpha1.ComponentDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural(kind) + "." + definitionGroup},
		Spec: v1alpha1.ComponentDefinitionSpec{Group: definitionGroup, Version: "v1alpha1",
			Names: v1alpha1.DefinitionNames{Kind: kind, Plural: plural(kind)}, Source: v1alpha1.DefinitionSource{Source: "cm"}},
	}
	if err := d.admins.Create(d.ctx, def); err != nil {
		d.b.Fatal(err)
	}
	d.kinds = append(d.kinds, kind)
}

// waitServed returns once the API server serves kind.
func (d *definitionRun) waitServed(kind string) {
	for d.ctx.Err() == nil {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(d.gvk(kind + "List"))
		err := d.admins.List(d.ctx, list, client.InNamespace(d.ns), client.Limit(1))
		if err == nil {
			return
		}
		if !meta.IsNoMatchError(err) && !strings.Contains(err.Error(), "the server could not find the requested resource") {
			d.b.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	d.b.Fatalf("%s was not served: %v", kind, d.ctx.Err())
}

func (d *definitionRun) createInstances(kind string, n int) {
	objects := make([]client.Object, n)
	for i := range objects {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"value": "v1"}}}
		u.SetGroupVersionKind(d.gvk(kind))
		u.SetNamespace(d.ns)
		u.SetName(fmt.Sprintf("%s-%03d", strings.ToLower(kind), i))
		objects[i] = u
	}
	inWorkers(d.b, 8, objects, func(o client.Object) error { return d.admins.Create(d.ctx, o) })
}

func (d *definitionRun) createComponents(n int) {
	objects := make([]client.Object, n)
	for i := range objects {
		objects[i] = &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: d.ns, Name: fmt.Sprintf("c-%04d", i)},
			Spec: v1alpha1.ComponentSpec{Source: "cm", Values: &apiextensionsv1.JSON{Raw: []byte(`{"value":"v1"}`)}}}
	}
	inWorkers(d.b, 8, objects, func(o client.Object) error { return d.admins.Create(d.ctx, o) })
}

// waitReady returns once n instances of kind are Ready.
func (d *definitionRun) waitReady(kind string, n int) {
	d.waitFor(func() int {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(d.gvk(kind + "List"))
		if err := d.admins.List(d.ctx, list, client.InNamespace(d.ns)); err != nil {
			d.b.Fatal(err)
		}
		ready := 0
		for _, u := range list.Items {
			conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			if slices.ContainsFunc(conditions, func(c any) bool {
				m, _ := c.(map[string]any)
				return m["type"] == "Ready" && m["status"] == "True"
			}) {
				ready++
			}
		}
		return ready
	}, n, kind)
}

// waitCounted returns once every definition's status counts its n
// instances Ready: the definitions have caught up with their instances.
func (d *definitionRun) waitCounted(n int) {
	d.waitFor(func() int {
		var defs v1alpha1.ComponentDefinitionList
		if err := d.admins.List(d.ctx, &defs); err != nil {
			d.b.Fatal(err)
		}
		counted := 0
		for _, def := range defs.Items {
			if def.Status.ReadyInstances == int32(n) {
				counted++
			}
		}
		return counted
	}, len(d.kinds), "ComponentDefinitions counting their instances")
}

func (d *definitionRun) waitComponentsReady(n int) {
	d.waitFor(func() int {
		var list v1alpha1.ComponentList
		if err := d.admins.List(d.ctx, &list, client.InNamespace(d.ns)); err != nil {
			d.b.Fatal(err)
		}
		ready := 0
		for _, c := range list.Items {
			if meta.IsStatusConditionTrue(c.Status.Conditions, "Ready") {
				ready++
			}
		}
		return ready
	}, n, "Components")
}

func (d *definitionRun) waitFor(count func() int, n int, what string) {
	for d.ctx.Err() == nil {
		if count() >= n {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	d.b.Fatalf("%s: fewer than %d Ready: %v\n%s", what, n, d.ctx.Err(), d.op.out.String())
}

// finish deletes what the run made, while the operator still runs to let
// go of it, and stops the operator.
func (d *definitionRun) finish() {
	var components v1alpha1.ComponentList
	_ = d.admins.DeleteAllOf(d.ctx, &v1alpha1.Component{}, client.InNamespace(d.ns))
	for _, kind := range d.kinds {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(d.gvk(kind))
		_ = d.admins.DeleteAllOf(d.ctx, u, client.InNamespace(d.ns))
		_ = d.admins.Delete(d.ctx, &v1alpha1.ComponentDefinition{ObjectMeta: metav1.ObjectMeta{Name: plural(kind) + "." + definitionGroup}})
	}
	deadline := time.Now().Add(2 * time.Minute)
	for d.ctx.Err() == nil && time.Now().Before(deadline) {
		var defs v1alpha1.ComponentDefinitionList
		_ = d.admins.List(d.ctx, &defs)
		_ = d.admins.List(d.ctx, &components, client.InNamespace(d.ns))
		if len(defs.Items) == 0 && len(components.Items) == 0 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	d.op.stop(d.b)
}
