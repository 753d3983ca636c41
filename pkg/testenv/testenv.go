package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/wavekit-dev/wavekit/pkg/localcloud"
	"github.com/wavekit-dev/wavekit/pkg/testenv/clusterrun"
	"github.com/wavekit-dev/wavekit/pkg/testenv/k8sbin"
)

// FailAnnotation, set to "true" on a pod, makes kwok move the pod to Failed
// (exit code 1) instead of Running: a Job of such pods fails.
const FailAnnotation = clusterrun.FailAnnotation

// NotReadyAnnotation, set to "true" on a pod, makes kwok move the pod to
// Running with its Ready condition False, where it stays: a Deployment of
// such pods never becomes Available, and a Job of them never finishes.
const NotReadyAnnotation = clusterrun.NotReadyAnnotation

// DefaultNodes is the number of Nodes when Environment.Nodes is 0.
const DefaultNodes = 3

// startTimeout bounds the start of the controllers and Nodes.
const startTimeout = 2 * time.Minute

// Environment is a local cluster for tests. Its envtest.Environment says what
// to install and where the binaries are; Start fills in its Config.
type Environment struct {
	envtest.Environment

	// Nodes is the number of Nodes kwok simulates (DefaultNodes when 0),
	// named kwok-node-0, kwok-node-1, ...
	Nodes int

	// APIServerOnly starts kube-apiserver and etcd alone, as envtest does:
	// nothing reconciles, schedules or runs pods.
	APIServerOnly bool

	// Cloud says which parts of the simulated cloud run with the
	// controllers: by default a default StorageClass whose claims get a
	// volume and bind, and addresses for Services of type LoadBalancer
	// (see package localcloud). Without the controllers none runs.
	Cloud localcloud.Options

	parts    *clusterrun.Group
	clientCA *clientCA // nil when the APIServer brings its own Authn
	cloud    *runningCloud
	gate     *runningGate
	logDir   string
}

// Start starts the egress gate, kube-apiserver and etcd, installs the CRDs
// and waits until they are established (envtest), then, unless
// APIServerOnly, starts
// kube-controller-manager, kube-scheduler and kwok, waits until the Nodes
// are Ready, and starts the simulated cloud of Cloud. It returns a configuration of a cluster administrator; stop it
// with Stop. After an error, it has stopped what it started.
func (e *Environment) Start() (*rest.Config, error) {
	if e.BinaryAssetsDirectory == "" || os.Getenv(k8sbin.EnvVar) != "" {
		dir, err := k8sbin.Dir(os.Stderr)
		if err != nil {
			return nil, err
		}
		e.BinaryAssetsDirectory = dir
	}
	if !e.APIServerOnly {
		if err := k8sbin.Check(e.BinaryAssetsDirectory, k8sbin.Cluster...); err != nil {
			return nil, err
		}
		// envtest turns the ServiceAccount admission plugin off, since
		// nothing would create a namespace's default account. With the
		// controllers something does, and a pod then runs as an account
		// that exists or is refused, as in a real cluster.
		e.ControlPlane.GetAPIServer().Configure().Disable("disable-admission-plugins")
	}
	if err := e.configureAPIServer(); err != nil {
		return nil, err
	}
	cfg, err := e.Environment.Start()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("starting kube-apiserver and etcd from %s: %w", e.BinaryAssetsDirectory, err), e.Stop())
	}
	if err := e.gate.WatchCluster(cfg); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	if e.APIServerOnly {
		return cfg, nil
	}
	if err := e.startParts(cfg); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	return cfg, nil
}

// NodeNames are the names of the Nodes kwok simulates.
func (e *Environment) NodeNames() []string {
	if e.APIServerOnly {
		return nil
	}
	n := e.Nodes
	if n == 0 {
		n = DefaultNodes
	}
	return clusterrun.NodeNames(n)
}

// startParts starts the controllers, the scheduler and kwok against the API
// server and waits for the Nodes.
func (e *Environment) startParts(cfg *rest.Config) error {
	dir, err := os.MkdirTemp("", "wavekit-testenv-")
	if err != nil {
		return fmt.Errorf("creating the directory of the cluster's logs: %w", err)
	}
	e.logDir = dir
	files, err := e.writeFiles(cfg)
	if err != nil {
		return err
	}
	parts, err := clusterrun.Parts(files)
	if err != nil {
		return err
	}
	if e.parts, err = clusterrun.StartParts(e.BinaryAssetsDirectory, dir, parts, clusterrun.StartOptions{}); err != nil {
		return fmt.Errorf("starting the cluster (logs in %s): %w", dir, err)
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return fmt.Errorf("creating a client: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := clusterrun.CreateNodes(ctx, c, e.NodeNames(), e.parts.Exited); err != nil {
		return fmt.Errorf("starting the cluster (logs in %s): %w%s", dir, err, e.parts.Tails())
	}
	e.cloud, err = startCloud(ctx, cfg, e.Cloud, dir)
	return err
}

// writeFiles writes what the parts read into the log directory.
func (e *Environment) writeFiles(cfg *rest.Config) (clusterrun.Files, error) {
	files := clusterrun.Files{
		Kubeconfig: filepath.Join(e.logDir, "admin.kubeconfig"),
		CAFile:     filepath.Join(e.logDir, "ca.crt"),
		Dir:        e.logDir,
	}
	if err := WriteKubeconfig(cfg, files.Kubeconfig); err != nil {
		return files, err
	}
	if err := os.WriteFile(files.CAFile, cfg.CAData, 0o600); err != nil {
		return files, fmt.Errorf("writing %s: %w", files.CAFile, err)
	}
	if e.clientCA != nil {
		files.ClientCAFile, files.ClientCAKey = e.clientCA.certFile(), e.clientCA.keyFile()
	}
	key, err := serviceAccountSigningKey(e.ControlPlane.APIServer)
	files.SigningKey = key
	return files, err
}

// serviceAccountSigningKey returns the key that kube-apiserver verifies
// service account tokens with, so that the tokens kube-controller-manager
// issues are valid.
func serviceAccountSigningKey(apiserver *envtest.APIServer) (string, error) {
	key := filepath.Join(apiserver.CertDir, "sa-signer.key") // envtest's default
	if set := apiserver.Configure().Get("service-account-signing-key-file").Get(nil); len(set) > 0 {
		key = set[0]
	}
	if _, err := os.Stat(key); err != nil {
		return "", fmt.Errorf("finding kube-apiserver's service account signing key: %w", err)
	}
	return key, nil
}

// Stop stops the simulated cloud, the controllers, the scheduler and kwok if
// they run, the egress gate, then kube-apiserver and etcd, and removes their
// data and logs (the administrator's kubeconfig and the CA among them); the
// logs stay, and the error names their folder, only when a part failed to
// stop.
func (e *Environment) Stop() error {
	var errs []error
	if e.cloud != nil {
		if err := e.cloud.stop(); err != nil {
			errs = append(errs, err)
		}
		e.cloud = nil
	}
	if e.parts != nil {
		if err := e.parts.Stop(clusterrun.StopGrace); err != nil {
			errs = append(errs, fmt.Errorf("stopping the cluster (logs in %s): %w", e.logDir, err))
		}
		e.parts = nil
	}
	if e.logDir != "" && len(errs) == 0 {
		if err := os.RemoveAll(e.logDir); err != nil {
			errs = append(errs, err)
		}
		e.logDir = ""
	}
	// The gate first: kube-apiserver would wait for the gate's watches
	// before it exits.
	if e.gate != nil {
		if err := e.gate.stop(); err != nil {
			errs = append(errs, err)
		}
		e.gate = nil
	}
	if err := e.Environment.Stop(); err != nil {
		errs = append(errs, fmt.Errorf("stopping kube-apiserver and etcd: %w", err))
	}
	return errors.Join(errs...)
}
