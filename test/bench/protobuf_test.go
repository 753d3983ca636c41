package bench_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// applyAndWatchTyped is applyAndWatch's protobuf round: a typed clientset
// that asks for protobuf answers applies the objects (each as the same
// apply patch the dynamic client sends) and watches them, converting each
// ConfigMap the watch brings to unstructured, as a typed cache read by the
// engine would; then the ConfigMaps are deleted.
func applyAndWatchTyped(b *testing.B, ctx context.Context, e *testcluster.Env, cfg *rest.Config, wire *wireCounter, ns string, objects []client.Object) cborRound {
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	configMaps := cs.CoreV1().ConfigMaps(ns)
	var round cborRound
	round.apply = wire.measure(func() {
		inWorkers(b, 8, objects, func(o client.Object) error {
			_, err := configMaps.Apply(ctx, corev1ac.ConfigMap(o.GetName(), ns).WithData(map[string]string{"value": "v1"}),
				metav1.ApplyOptions{FieldManager: "bench.wavekit.dev", Force: true})
			return err
		})
	})
	round.watch = wire.measure(func() { watchTypedInitialEvents(b, ctx, configMaps, len(objects)) })
	if err := e.Client.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(ns)); err != nil {
		b.Fatal(err)
	}
	return round
}

// watchTypedInitialEvents is watchInitialEvents for a typed client: it
// converts each ConfigMap to unstructured as it comes.
func watchTypedInitialEvents(b *testing.B, ctx context.Context, configMaps typedcorev1.ConfigMapInterface, n int) {
	w, err := configMaps.Watch(ctx, initialEvents())
	if err != nil {
		b.Fatal(err)
	}
	awaitInitialEvents(b, ctx, w, n, func(o runtime.Object) error {
		_, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		return err
	})
}

// serverPID finds the kube-apiserver that serves cfg by its secure port
// among the processes of the machine; 0 when none does (its CPU then
// reads as zero).
func serverPID(b *testing.B, cfg *rest.Config) int {
	u, err := url.Parse(cfg.Host)
	if err != nil {
		b.Fatal(err)
	}
	flag := "--secure-port=" + u.Port()
	entries, _ := os.ReadDir("/proc")
	for _, entry := range entries {
		pid, err := strconv.Atoi(entry.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", entry.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if strings.HasSuffix(args[0], "kube-apiserver") && strings.Contains(string(cmdline), flag) {
			return pid
		}
	}
	return 0
}
