package demo

import (
	"errors"
	"fmt"
	"io/fs"
	"path"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/config"
	"github.com/wavekit-dev/wavekit/pkg/testenv"
)

// controlPlane is the demo's local cluster: the one pkg/testenv starts for
// the tests of component operators (kube-apiserver, etcd, the controllers,
// the scheduler and kwok's Nodes), with the reference operator's CRDs, as
// its chart ships them, so the demo runs from any directory.
type controlPlane struct {
	environment *testenv.Environment
	config      *rest.Config
	client      client.Client
	scheme      *runtime.Scheme
}

// startControlPlane starts the cluster from the binaries in dir.
func startControlPlane(dir string) (*controlPlane, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, v1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building the demo's scheme: %w", err)
		}
	}
	crds, err := operatorCRDs()
	if err != nil {
		return nil, err
	}
	environment := &testenv.Environment{Environment: envtest.Environment{CRDs: crds, Scheme: scheme, BinaryAssetsDirectory: dir}}
	cfg, err := environment.Start()
	if err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("creating the demo's client: %w", err), environment.Stop())
	}
	return &controlPlane{environment: environment, config: cfg, client: c, scheme: scheme}, nil
}

// stop stops every process of the cluster and removes its data.
func (cp *controlPlane) stop() error { return cp.environment.Stop() }

// operatorCRDs are the CRDs of the reference operator's chart.
func operatorCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := fs.Glob(config.Chart, "chart/crds/*.yaml")
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("the operator chart's CRDs: none embedded (%v)", err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, file := range files {
		data, err := fs.ReadFile(config.Chart, file)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", file, err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("the operator chart's %s: %w", path.Base(file), err)
		}
		crds = append(crds, crd)
	}
	return crds, nil
}
