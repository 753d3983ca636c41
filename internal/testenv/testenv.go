package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Env is a running test control plane.
type Env struct {
	// Config reaches the API server as a cluster administrator.
	Config *rest.Config
	// Client is a direct (uncached) client with Scheme.
	Client client.Client
	// Scheme knows the built-in types and the CRD types.
	Scheme *k8sruntime.Scheme

	environment *envtest.Environment
	apiserver   *apiserverProcess // started by RestartAPIServer, if any
	cluster     *cluster          // with Options.Controllers
}

// Options change what Start installs.
type Options struct {
	// ExtraCRDDirs are installed after the project's and the test CRDs.
	ExtraCRDDirs []string
	// Scheme, if set, is used instead of a scheme with the built-in types.
	Scheme *k8sruntime.Scheme
	// Controllers makes a whole cluster: kube-controller-manager (every
	// default controller), kube-scheduler and kwok with the Nodes FakeNodes,
	// which Start waits for until they are Ready. Without it only
	// kube-apiserver and etcd run: nothing reconciles, schedules or runs pods.
	Controllers bool
}

// Start builds (first time only) and starts kube-apiserver and etcd, installs
// the CRDs of config/crd/bases and test/crds and waits until they are
// established; with opts.Controllers it then starts the controllers, the
// scheduler and the fake Nodes (see Options). Stop it with Stop.
func Start(opts Options) (*Env, error) {
	assets, err := Assets()
	if err != nil {
		return nil, err
	}
	if opts.Controllers {
		if err := checkClusterBinaries(assets); err != nil {
			return nil, err
		}
	}
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
	environment := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     crdDirs,
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
	}
	// envtest's default Service range is a /24: 254 Services, too few for
	// the scale benchmarks.
	environment.ControlPlane.GetAPIServer().Configure().Set("service-cluster-ip-range", "10.96.0.0/16")
	if opts.Controllers {
		// envtest turns the ServiceAccount admission plugin off, since
		// nothing would create a namespace's default account. With the
		// controllers something does, and a pod then runs as an account that
		// exists or is refused, as in a real cluster.
		environment.ControlPlane.GetAPIServer().Configure().Disable("disable-admission-plugins")
	}
	cfg, err := environment.Start()
	if err != nil {
		return nil, fmt.Errorf("starting test control plane from %s: %w", assets, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = environment.Stop()
		return nil, fmt.Errorf("creating test client: %w", err)
	}
	env := &Env{Config: cfg, Client: c, Scheme: scheme, environment: environment}
	if opts.Controllers {
		if env.cluster, err = startCluster(assets, environment, cfg, c); err != nil {
			return nil, errors.Join(err, environment.Stop())
		}
	}
	return env, nil
}

// Stop stops the controllers, the scheduler and kwok if they run, then
// kube-apiserver and etcd, and removes their data.
func (e *Env) Stop() error {
	if e == nil || e.environment == nil {
		return nil
	}
	var controllers error
	if e.cluster != nil {
		controllers = e.cluster.stop()
		e.cluster = nil
	}
	// A kube-apiserver that RestartAPIServer started first: envtest stops
	// only its own (which has exited then) and removes the certificates.
	restarted := e.stopRestarted()
	if err := e.environment.Stop(); err != nil {
		return errors.Join(controllers, restarted, fmt.Errorf("stopping test control plane: %w", err))
	}
	return errors.Join(controllers, restarted)
}

// Assets returns the directory with the control plane's binaries:
// $KUBEBUILDER_ASSETS when set; otherwise what hack/control-plane.sh of this
// checkout prints (it builds them on first use and returns at once after
// that); otherwise, for a binary built without its checkout (-trimpath), the
// newest control plane that script left in its cache.
func Assets() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	script := filepath.Join(ModuleRoot(), "hack", "control-plane.sh")
	if _, err := os.Stat(script); err != nil {
		if dir, ok := cachedAssets(); ok {
			return dir, nil
		}
		return "", errors.New("no kube-apiserver and etcd found: run this from a wavekit checkout (make control-plane builds them), " +
			"or set KUBEBUILDER_ASSETS to a directory that holds both")
	}
	var stdout bytes.Buffer
	cmd := exec.Command("bash", script)
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("running %s: %w", script, err)
	}
	dir := strings.TrimSpace(stdout.String())
	if dir == "" {
		return "", fmt.Errorf("%s printed no directory", script)
	}
	return dir, nil
}

// cachedAssets finds the newest directory of hack/control-plane.sh's cache
// that holds every binary of the cluster (Options.Controllers needs them all).
func cachedAssets() (string, bool) {
	dirs, _ := filepath.Glob(filepath.Join(cacheRoot(), "k8s", "*-etcd*"))
	slices.Sort(dirs)
	for _, dir := range slices.Backward(dirs) {
		if isExecutable(filepath.Join(dir, "kube-apiserver")) && isExecutable(filepath.Join(dir, "etcd")) && checkClusterBinaries(dir) == nil {
			return dir, true
		}
	}
	return "", false
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

// ModuleRoot is the directory of the wavekit module, found from this file.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}
