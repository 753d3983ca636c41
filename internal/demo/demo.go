package demo

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/testenv/k8sbin"
)

//go:embed all:chart
var chartFiles embed.FS

const (
	operatorName = "wavekit.dev"
	namespace    = "demo"
	// objectsNamespace is where the gizmo chart puts its objects: a
	// Namespace among its manifests, deleted last.
	objectsNamespace = "gizmo"
	stepTimeout      = 3 * time.Minute
	// demoReplicas is the number of pods of the demo's Deployment.
	demoReplicas = 3
)

// Run runs the demo and returns an error when any step did not behave as
// described. out receives the progress; width is the number of columns when
// out is a terminal (a table redrawn in place), 0 otherwise (plain lines).
func Run(ctx context.Context, out io.Writer, width int) error {
	log.SetLogger(logr.Discard()) // the demo shows progress; the operator's log would drown it
	d := &demo{out: out, progress: newProgress(out, width)}
	d.stage(stageCluster)
	// Only a missing build is built, and said so with its estimate.
	binaries, err := k8sbin.Dir(out)
	if err != nil {
		return err
	}
	d.say("local cluster binaries in %s; starting %d Nodes that kwok simulates", binaries, len(nodes))
	cp, err := startControlPlane(binaries)
	if err != nil {
		return err
	}
	defer func() {
		d.say("stopping the control plane")
		_ = cp.stop()
	}()
	d.client = cp.client
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := d.startOperator(ctx, cp); err != nil {
		return err
	}
	d.say("the real controllers roll Deployments out and run Jobs; kwok moves their pods through their phases (no containers run)")
	return d.steps(ctx)
}

type demo struct {
	out      io.Writer
	client   client.Client
	progress *progress
}

func (d *demo) say(format string, args ...any) {
	d.progress.line("» " + fmt.Sprintf(format, args...))
}

// startOperator writes the bundled chart to a directory and runs the
// reference operator in this process against the control plane.
func (d *demo) startOperator(ctx context.Context, cp *controlPlane) error {
	dir, err := writeChart()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cp.config, ctrl.Options{
		Scheme: cp.scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		return fmt.Errorf("creating the operator's manager: %w", err)
	}
	if _, err := operator.Setup(mgr, operator.Options{Name: operatorName, Sources: map[string]string{"gizmo": dir}}); err != nil {
		return err
	}
	go func() { _ = mgr.Start(ctx) }()
	d.say("reference operator running with source gizmo (a Helm chart bundled with the demo)")
	return nil
}

func writeChart() (string, error) {
	dir, err := os.MkdirTemp("", "wavekit-demo-chart-")
	if err != nil {
		return "", fmt.Errorf("writing the demo chart: %w", err)
	}
	sub, err := fs.Sub(chartFiles, "chart")
	if err != nil {
		return "", err
	}
	if err := os.CopyFS(filepath.Join(dir, "gizmo"), sub); err != nil {
		return "", fmt.Errorf("writing the demo chart: %w", err)
	}
	return filepath.Join(dir, "gizmo"), nil
}

func newNamespace(ctx context.Context, c client.Client) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if err := c.Create(ctx, ns); err != nil {
		return fmt.Errorf("creating namespace %s: %w", namespace, err)
	}
	return nil
}
