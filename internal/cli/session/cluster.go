package session

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// Cluster is a reachable API server.
type Cluster struct {
	Config    *rest.Config
	Client    client.Client
	Discovery discovery.DiscoveryInterface
	Scheme    *runtime.Scheme
	Namespace string
}

// pingTimeout bounds the first request that proves the cluster is reachable.
const pingTimeout = 15 * time.Second

// Connect loads the kubeconfig and checks that the API server answers.
func (s *Session) Connect(ctx context.Context) (*Cluster, error) {
	cfg, err := s.RESTConfig()
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	s.Tune(cfg)
	scheme, err := newScheme()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("connecting to the cluster at %s: %w", cfg.Host, UnwrapURLError(err))
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to the cluster at %s: %w", cfg.Host, err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := dc.RESTClient().Get().AbsPath("/version").Do(pingCtx).Error(); err != nil {
		return nil, fmt.Errorf("cannot reach the cluster at %s: %w", cfg.Host, UnwrapURLError(err))
	}
	return &Cluster{Config: cfg, Client: c, Discovery: dc, Scheme: scheme, Namespace: s.ReleaseNamespace()}, nil
}

// UnwrapURLError drops the request URL that Go's HTTP client puts in front of
// a connection error (the host is named already).
func UnwrapURLError(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err
	}
	return err
}

func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the client scheme: %w", err)
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building the client scheme: %w", err)
	}
	return scheme, nil
}

// OperatorCluster connects with a scheme that knows the reference
// operator's kinds (Components, ComponentSets, Providers).
func OperatorCluster(ctx context.Context, s *Session) (*Cluster, error) {
	cl, err := s.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(cl.Scheme); err != nil {
		return nil, fmt.Errorf("building the client scheme: %w", err)
	}
	return cl, nil
}

// ObjectName is the object a NAMESPACE/NAME argument names, or
// NAME in namespace.
func ObjectName(arg, namespace string) types.NamespacedName {
	if ns, name, ok := strings.Cut(arg, "/"); ok {
		return types.NamespacedName{Namespace: ns, Name: name}
	}
	return types.NamespacedName{Namespace: namespace, Name: arg}
}
