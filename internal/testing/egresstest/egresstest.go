package egresstest

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // a package of Ginkgo helpers
	. "github.com/onsi/gomega"    //nolint:revive
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/internal/testing/conntrace"
)

// timeout bounds what the API server and the controllers do within
// seconds, with room for a loaded machine.
const timeout = 2 * time.Minute

// CheckLabel, "true" on a ConfigMap of the chart's namespace, sends its
// creation to the validating webhook, whose failurePolicy is Fail.
const CheckLabel = "egress.wavekit.dev/check"

// The chart's webhooks, by name.
const (
	MutatingWebhook   = "mutate.egress.wavekit.dev"
	ValidatingWebhook = "validate.egress.wavekit.dev"
)

// ChartDir is the directory of the chart egress.
func ChartDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "egress")
}

// WebhookRefusal is the gate's reason for the webhooks of the chart
// installed in ns.
func WebhookRefusal(ns string) string {
	return "no container serves Service " + ns + "/webhooks in the local cluster"
}

// APIServiceRefusal is the gate's reason for the APIService of the chart
// installed in ns.
func APIServiceRefusal(ns string) string {
	return "no container serves Service " + ns + "/metrics-apiserver in the local cluster"
}

// APIServiceName is the name of the APIService of the chart installed in
// ns.
func APIServiceName(ns string) string { return "v1beta1." + ns + ".egress.wavekit.dev" }

// TraceAPIServer traces the connections of the kube-apiserver process pid
// from now on; the function it returns stops the trace and fails the spec
// when kube-apiserver connected to an address outside 127.0.0.0/8 and ::1
// (it says where), or never to socket, the egress gate's. A spec that ends
// before it calls the function has the trace stopped and checked for
// connections off the machine then.
func TraceAPIServer(pid int, socket string) (expectClosed func()) {
	GinkgoHelper()
	tracer, err := conntrace.Attach(pid)
	Expect(err).NotTo(HaveOccurred())
	var connects []conntrace.Connect
	stopped := false
	stop := func() {
		GinkgoHelper()
		stopped = true
		connects, err = tracer.Stop()
		Expect(err).NotTo(HaveOccurred())
		Expect(distinct(conntrace.OffMachine(connects))).To(BeEmpty(), "kube-apiserver (pid %d) connected off the machine", pid)
	}
	DeferCleanup(func() {
		if !stopped {
			stop()
		}
	})
	return func() {
		GinkgoHelper()
		stop()
		Expect(conntrace.ToSocket(connects, socket)).NotTo(BeZero(), "kube-apiserver (pid %d) never asked the egress gate", pid)
	}
}

// distinct are the addresses of connects, each once, with how often.
func distinct(connects []conntrace.Connect) []string {
	counts := map[string]int{}
	var order []string
	for _, c := range connects {
		if counts[c.String()] == 0 {
			order = append(order, c.String())
		}
		counts[c.String()]++
	}
	for i, address := range order {
		order[i] = fmt.Sprintf("%s (%d times)", address, counts[address])
	}
	return order
}

// ExpectRefusals checks, on the cluster of cfg where the chart is
// installed in ns, what a user sees: the Ignore webhook costs nothing (a
// Secret and a Pod are created, though the webhook was called and failed),
// the Fail webhook refuses with the gate's reason, the APIService is
// Available=False with the gate's reason, and the logs of a pod of the
// chart cannot be read, since kwok runs no kubelet.
func ExpectRefusals(ctx context.Context, cfg *rest.Config, ns string) {
	GinkgoHelper()
	cs, err := kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	expectFailOpen(ctx, cs, ns)
	ExpectFailClosed(ctx, cs, ns)
	expectAPIServiceUnavailable(ctx, cfg, ns)
	expectNoLogs(ctx, cs, ns)
}
