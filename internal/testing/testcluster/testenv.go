package testcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/wavekit-dev/wavekit/pkg/testenv"
	"github.com/wavekit-dev/wavekit/pkg/testenv/k8sbin"
)

// FailAnnotation, set to "true" on a pod, makes the test cluster's kwok move
// the pod to Failed (exit code 1) instead of Running.
const FailAnnotation = testenv.FailAnnotation

// NotReadyAnnotation, set to "true" on a pod, makes the test cluster's kwok
// move the pod to Running with its Ready condition False, where it stays: a
// Deployment of such pods never becomes available, and a Job of them never
// finishes.
const NotReadyAnnotation = testenv.NotReadyAnnotation

// FakeNodes are the names of the Nodes that kwok simulates in a cluster that
// Start started with Options.Controllers and the default Options.Nodes.
var FakeNodes = (&testenv.Environment{}).NodeNames()

// Env is a running test control plane.
type Env struct {
	// Config reaches the API server as a cluster administrator.
	Config *rest.Config
	// Client is a direct (uncached) client with Scheme.
	Client client.Client
	// Scheme knows the built-in types and the CRD types.
	Scheme *k8sruntime.Scheme

	environment *testenv.Environment
	apiserver   *apiserverProcess // started by RestartAPIServer, if any
}

// Options change what Start installs.
type Options struct {
	// ExtraCRDDirs are installed after the project's and the test CRDs.
	ExtraCRDDirs []string
	// Scheme, if set, is used instead of a scheme with the built-in types.
	Scheme *k8sruntime.Scheme
	// Controllers makes a whole cluster: kube-controller-manager (every
	// default controller), kube-scheduler and kwok with the Nodes FakeNodes,
	// which Start waits for until they are Ready, and the simulated cloud
	// (package localcloud: a default StorageClass whose claims bind, and
	// addresses for Services of type LoadBalancer). Without it only
	// kube-apiserver and etcd run: nothing reconciles, schedules or runs pods.
	Controllers bool
	// Nodes is how many Nodes kwok simulates with Controllers, each with
	// room for 110 pods (default 3, see FakeNodes).
	Nodes int
}

// Start builds (first time only) and starts kube-apiserver and etcd, installs
// the CRDs of config/crd/bases and test/crds and waits until they are
// established; with opts.Controllers it then starts the controllers, the
// scheduler and the fake Nodes (see Options). Stop it with Stop. It is
// pkg/testenv's Environment with this project's CRDs.
func Start(opts Options) (*Env, error) {
	scheme := opts.Scheme
	if scheme == nil {
		scheme = k8sruntime.NewScheme()
		if err := clientgoscheme.AddToScheme(scheme); err != nil {
			return nil, fmt.Errorf("building test scheme: %w", err)
		}
		if err := apiextensionsv1.AddToScheme(scheme); err != nil {
			return nil, fmt.Errorf("building test scheme: %w", err)
		}
	}
	root := ModuleRoot()
	crdDirs := append([]string{
		filepath.Join(root, "config", "crd", "bases"),
		filepath.Join(root, "test", "crds"),
	}, opts.ExtraCRDDirs...)
	environment := &testenv.Environment{APIServerOnly: !opts.Controllers, Nodes: opts.Nodes, Environment: envtest.Environment{
		CRDDirectoryPaths:     crdDirs,
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
	}}
	cfg, err := environment.Start()
	if err != nil {
		return nil, fmt.Errorf("starting test control plane: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("creating test client: %w", err), environment.Stop())
	}
	return &Env{Config: cfg, Client: c, Scheme: scheme, environment: environment}, nil
}

// EgressSocket is the Unix socket of the egress gate that kube-apiserver
// connects through to the cluster's addresses (see pkg/testenv).
func (e *Env) EgressSocket() string { return e.environment.EgressSocket() }

// Stop stops the controllers, the scheduler and kwok if they run, then
// kube-apiserver and etcd, and removes their data.
func (e *Env) Stop() error {
	if e == nil || e.environment == nil {
		return nil
	}
	// A kube-apiserver that RestartAPIServer started first: envtest stops
	// only its own (which has exited then) and removes the certificates.
	restarted := e.stopRestarted()
	return errors.Join(restarted, e.environment.Stop())
}

// Assets returns the directory with the control plane's binaries:
// $KUBEBUILDER_ASSETS when set; otherwise what hack/control-plane.sh of this
// checkout prints (it builds them on first use and returns at once after
// that); otherwise, for a binary built without its checkout (-trimpath), the
// newest control plane that script left in its cache.
func Assets() (string, error) {
	return k8sbin.Dir(os.Stderr)
}

// ModuleRoot is the directory of the wavekit module, found from this file.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// StartSigner makes a cluster started without Options.Controllers sign the
// approved CertificateSigningRequests of kubernetes.io/kube-apiserver-client
// (pkg/testenv's Environment.StartSigner); Stop stops it.
func (e *Env) StartSigner() error { return e.environment.StartSigner() }
