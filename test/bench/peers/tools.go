package main

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
)

// benchNamespace holds every release of a run.
const benchNamespace = "bench"

// tool is an operator under test: what it needs in the cluster, how it is
// started, and the custom resource that asks it for one release.
type tool interface {
	// name names the tool in results.
	name() string
	// user is the identity the tool's controller uses (audit log user name).
	user() string
	// version says which build of the tool runs.
	version(bins binaries) string
	// start installs the tool's CRDs and RBAC into c and starts its
	// controller as its own ServiceAccount.
	start(ctx context.Context, c *cluster, bins binaries, repo *chartRepository) (*controller, error)
	// resource is the custom resource of one release.
	resource() schema.GroupVersionResource
	// release is the custom resource of release name with the value message.
	release(name, message string, repo *chartRepository) *unstructured.Unstructured
}

var toolsByName = map[string]tool{
	"wavekit":         wavekitTool{},
	"helm-controller": helmControllerTool{},
	"helm":            helmCLI,
	"wavekit-cli":     wavekitCLI,
}

// waitServed waits until the API server serves gvr (its CRD is established
// and discovery has it).
func (c *cluster) waitServed(ctx context.Context, gvr schema.GroupVersionResource) error {
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := c.dynamic.Resource(gvr).List(ctx, listOne)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("waiting until %s is served: %w", gvr, err)
	}
	return nil
}

// listOne lists at most one object: enough to see that a resource is served.
var listOne = metav1.ListOptions{Limit: 1}
