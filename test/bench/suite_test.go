package bench_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// env is the bare control plane (kube-apiserver and etcd) that the
// benchmarks of ConfigMaps share: nothing but the API server decides when a
// ConfigMap is ready, and the controllers would only add load (the garbage
// collector watches every ConfigMap) to what those benchmarks compare.
var env = &testcluster.Once{Options: testcluster.Options{Scheme: scheme()}}

// cluster is the whole local cluster (controllers, scheduler, kwok's fake
// Nodes) of the scale benchmarks, whose Deployments the Deployment
// controller reports available.
var cluster = &testcluster.Once{Options: testcluster.Options{Scheme: scheme(), Controllers: true}}

// TestMain stops the control planes that the benchmarks start.
func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard()) // else controller-runtime warns, with a stack trace, that no logger is set
	code := m.Run()
	_ = scaleCluster.Stop()
	_ = cluster.Stop()
	_ = env.Stop()
	os.Exit(code)
}

func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = v1alpha1.AddToScheme(s)
	return s
}

var namespaces atomic.Int32

// newNamespace creates a namespace of its own in e for one measurement.
func newNamespace(b *testing.B, e *testcluster.Env, prefix string) string {
	b.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, namespaces.Add(1))}}
	if err := e.Client.Create(context.Background(), ns); err != nil {
		b.Fatalf("creating namespace %s: %v", ns.Name, err)
	}
	return ns.Name
}
