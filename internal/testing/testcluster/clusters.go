package testcluster

import (
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/wavekit-dev/wavekit/pkg/testenv"
)

// startingAtOnce bounds how many bare clusters StartClusters starts at
// once: ten kube-apiservers starting together on two cores miss envtest's
// start timeout.
const startingAtOnce = 3

// bareStartTimeout bounds the start of one bare cluster (envtest's default
// is 20s, short on a busy machine).
const bareStartTimeout = time.Minute

// StartClusters starts n bare clusters, a few at once, for the targets of a
// fleet: each a kube-apiserver and etcd of its own, with no CRD and no
// controller, from the same control plane binaries as Start. Stop each with
// Stop; RestartAPIServer stops and starts one's API server. After an error,
// those that started are stopped.
func StartClusters(n int) ([]*Env, error) {
	envs := make([]*Env, n)
	errs := make([]error, n)
	slots := make(chan struct{}, startingAtOnce)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			envs[i], errs[i] = startBare()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, e := range envs {
			err = errors.Join(err, e.Stop())
		}
		return nil, err
	}
	return envs, nil
}

// startBare starts one kube-apiserver and etcd with the built-in types only.
func startBare() (*Env, error) {
	scheme := k8sruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the scheme of a bare cluster: %w", err)
	}
	environment := &testenv.Environment{APIServerOnly: true, Environment: envtest.Environment{Scheme: scheme,
		ControlPlaneStartTimeout: bareStartTimeout}}
	cfg, err := environment.Start()
	if err != nil {
		return nil, fmt.Errorf("starting a bare cluster: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("creating a client of a bare cluster: %w", err), environment.Stop())
	}
	return &Env{Config: cfg, Client: c, Scheme: scheme, environment: environment}, nil
}

// KubeconfigSecret is a Secret namespace/name that holds a kubeconfig of e
// (a cluster administrator's, credentials inline) under the key "value",
// with labels: what a Component's spec.kubeConfig or a ComponentSet's
// cluster Secret names.
func (e *Env) KubeconfigSecret(namespace, name string, labels map[string]string) (*corev1.Secret, error) {
	data, err := KubeconfigBytes(e.Config)
	if err != nil {
		return nil, err
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Data:       map[string][]byte{"value": data},
	}, nil
}
