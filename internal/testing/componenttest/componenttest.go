package componenttest

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// ManagerOptions are the options of a manager in a test: no metrics or
// probe servers, and no check that controller names are unique, since a
// suite starts many managers in one process.
func ManagerOptions(scheme *runtime.Scheme) ctrl.Options {
	return ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	}
}

// RunManager starts mgr and stops it, waiting until it has stopped, when
// the current spec ends, or earlier when the spec calls the stop it
// returns. The spec fails if the manager fails.
func RunManager(ctx context.Context, mgr ctrl.Manager) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer ginkgo.GinkgoRecover()
		defer close(done)
		gomega.Expect(mgr.Start(ctx)).To(gomega.Succeed())
	}()
	stop = func() { cancel(); <-done }
	ginkgo.DeferCleanup(stop)
	return stop
}

// GetComponent reads a Component; it returns nil when there is none.
func GetComponent(ctx context.Context, c client.Reader, key client.ObjectKey) (*v1alpha1.Component, error) {
	var got v1alpha1.Component
	err := c.Get(ctx, key, &got)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading Component %s: %w", key, err)
	}
	return &got, nil
}

// ReadyCondition returns the Ready condition of a Component as
// "Status/Reason: message", or "gone" when there is no such Component, or
// "none" when it has no Ready condition.
func ReadyCondition(ctx context.Context, c client.Reader, key client.ObjectKey) (string, error) {
	got, err := GetComponent(ctx, c, key)
	switch {
	case err != nil:
		return "", err
	case got == nil:
		return "gone", nil
	}
	cond := got.Status.ReadyCondition()
	if cond == nil {
		return "none", nil
	}
	return fmt.Sprintf("%s/%s: %s", cond.Status, cond.Reason, cond.Message), nil
}

// Counter sums the counters of the family name on controller-runtime's
// registry (every operator's metrics in a test process) whose labels
// include labels.
func Counter(name string, labels map[string]string) (float64, error) {
	families, err := metrics.Registry.Gather()
	if err != nil {
		return 0, fmt.Errorf("gathering the metrics: %w", err)
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if hasLabels(m.GetLabel(), labels) {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total, nil
}

func hasLabels(pairs []*dto.LabelPair, labels map[string]string) bool {
	found := 0
	for _, l := range pairs {
		if want, ok := labels[l.GetName()]; ok {
			if want != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(labels)
}
