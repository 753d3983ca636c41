package helm

import (
	"fmt"

	"helm.sh/helm/v3/pkg/chartutil"
	"k8s.io/client-go/rest"
)

// Option configures a Generator.
type Option func(*options) error

type options struct {
	operatorName    string
	releaseService  string
	kubeVersion     *chartutil.KubeVersion
	apiVersions     []string
	restConfig      *rest.Config
	dropDeleteHooks bool
	dependencies    DependencyResolver
	sourceRoot      string
}

// WithOperatorName sets the annotation prefix for renders whose context carries no manifests.ComponentInfo with an
// OperatorName (the context wins when it has one).
func WithOperatorName(name string) Option {
	return func(o *options) error {
		o.operatorName = name
		return nil
	}
}

// WithReleaseService sets .Release.Service, which otherwise is
// DefaultReleaseService ("Helm").
func WithReleaseService(service string) Option {
	return func(o *options) error {
		o.releaseService = service
		return nil
	}
}

// WithKubeVersion sets .Capabilities.KubeVersion for renders whose context
// carries no discovery client (like `helm template --kube-version`).
func WithKubeVersion(version string) Option {
	return func(o *options) error {
		kv, err := chartutil.ParseKubeVersion(version)
		if err != nil {
			return fmt.Errorf("helm generator: kube version %q: %w", version, err)
		}
		o.kubeVersion = kv
		return nil
	}
}

// WithAPIVersions adds API versions ("group/version" or
// "group/version/Kind") to .Capabilities.APIVersions, with or without
// discovery (like `helm template --api-versions`).
func WithAPIVersions(versions ...string) Option {
	return func(o *options) error {
		o.apiVersions = append(o.apiVersions, versions...)
		return nil
	}
}

// WithRESTConfig makes the template function lookup query the cluster behind
// cfg with Helm's own dynamic client, for renders whose context carries no
// client (manifests.ClientFrom). A context client always wins.
func WithRESTConfig(cfg *rest.Config) Option {
	return func(o *options) error {
		o.restConfig = cfg
		return nil
	}
}

// WithoutDeleteHooks drops pre-delete and post-delete hooks from the output
// instead of emitting them as delete-only objects (see AnnotationDeleteHook).
func WithoutDeleteHooks() Option {
	return func(o *options) error {
		o.dropDeleteHooks = true
		return nil
	}
}
