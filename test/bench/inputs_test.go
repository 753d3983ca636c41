package bench_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// memberCounts are the numbers of members BenchmarkInputMembers measures.
var memberCounts = []int{100, 1000}

// BenchmarkInputMembers measures what a member of a ComponentSet with
// spec.inputs costs the operator's memory: for each of memberCounts, the
// component-operator binary, one set whose list has that many entries, each
// member a ConfigMap on the operator's own cluster, and, once every member
// is Ready and the operator has settled, the median of its anonymous
// resident memory (RssAnon) over a second; and how long the members took
// from the set's creation to Ready.
func BenchmarkInputMembers(b *testing.B) {
	hub := env.Get(b)
	tenant := filepath.Join(testcluster.ModuleRoot(), "test", "fleet", "testdata", "tenant")
	for b.Loop() {
		anon := make([]float64, len(memberCounts))
		for i, n := range memberCounts {
			var took time.Duration
			anon[i], took = settledInputMembers(b, hub, tenant, n)
			b.ReportMetric(anon[i], fmt.Sprintf("anon-MiB-%d-members", n))
			b.ReportMetric(took.Seconds(), fmt.Sprintf("s-to-Ready-%d-members", n))
		}
		first, last := 0, len(memberCounts)-1
		b.ReportMetric((anon[last]-anon[first])*1024/float64(memberCounts[last]-memberCounts[first]), "anon-KiB-per-member")
	}
}

// settledInputMembers runs the operator over a set of n list entries and
// returns its settled anonymous resident memory in MiB, and the time the
// members took to be Ready.
func settledInputMembers(b *testing.B, hub *testcluster.Env, source string, n int) (float64, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	ns := newNamespace(b, hub, "inputmem")
	op := startOperator(b, ctx, hub, map[string]string{"tenant": source}, []string{ns})
	defer op.stop(b)
	maxMembers := int32(n)
	list := make([]v1alpha1.InputEntry, n)
	for i := range list {
		list[i] = v1alpha1.InputEntry{JSON: apiextensionsv1.JSON{Raw: fmt.Appendf(nil, `{"id":"t%04d"}`, i)}}
	}
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenants"}, Spec: v1alpha1.ComponentSetSpec{
		Template: v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "tenant"}},
		Inputs:   &v1alpha1.Inputs{InputSource: v1alpha1.InputSource{List: list}, MaxMembers: &maxMembers},
	}}
	start := time.Now()
	if err := hub.Client.Create(ctx, set); err != nil {
		b.Fatal(err)
	}
	waitComponentsReady(b, ctx, hub.Client, ns, n)
	took := time.Since(start)
	return settledAnonMiB(op.cmd.Process.Pid), took
}
