package operator

import (
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// componentResource is the plural under which the Component CRD is served.
const componentResource = "components"

// InstallCRDHint is the command that installs the Component CRD from a
// wavekit checkout; the operator's chart ships the same CRD.
const InstallCRDHint = "kubectl apply --server-side -f config/crd/bases " +
	"(from the wavekit repository), or install the operator's chart, which ships it: " +
	"helm install wavekit config/chart -n wavekit-system --create-namespace"

// CheckCRDServed asks the API server at cfg, by discovery (which every
// authenticated user may read), whether it serves the Component kind. If it
// does not, the error says so and how to install the CRD, instead of the
// REST-mapping error the manager would otherwise stop with.
func CheckCRDServed(cfg *rest.Config) error {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("discovery client for %s: %w", cfg.Host, err)
	}
	groupVersion := v1alpha1.GroupVersion.String()
	list, err := dc.ServerResourcesForGroupVersion(groupVersion)
	if apierrors.IsNotFound(err) {
		return notServed(cfg.Host)
	}
	if err != nil {
		return fmt.Errorf("checking that %s serves %s: %w", cfg.Host, groupVersion, err)
	}
	served := slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == componentResource })
	if !served {
		return notServed(cfg.Host)
	}
	return nil
}

func notServed(host string) error {
	return fmt.Errorf("the cluster at %s does not serve the Component CRD (%s.%s, version %s): install it with %s",
		host, componentResource, v1alpha1.GroupVersion.Group, v1alpha1.GroupVersion.Version, InstallCRDHint)
}
