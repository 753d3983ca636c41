package clusterrun

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FakeNodeAnnotation marks the Nodes that kwok manages.
const FakeNodeAnnotation = "kwok.x-k8s.io/node"

// NodeNames are the names of n fake Nodes: kwok-node-0, kwok-node-1, ...
func NodeNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("kwok-node-%d", i)
	}
	return names
}

// CreateNodes creates the fake Nodes that do not exist yet and deletes the
// fake Nodes not named (a cluster started again with fewer), then waits
// until every named Node is Ready and untainted, or exited reports that a
// part of the cluster has exited, or ctx ends.
func CreateNodes(ctx context.Context, c client.Client, names []string, exited func() error) error {
	if err := deleteOtherNodes(ctx, c, names); err != nil {
		return err
	}
	for _, name := range names {
		if err := c.Create(ctx, fakeNode(name)); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating fake Node %s: %w", name, err)
		}
	}
	var stopped, last error
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if stopped = exited(); stopped != nil {
			return false, stopped
		}
		last = NodesReady(ctx, c, names)
		return last == nil, nil
	})
	switch {
	case stopped != nil:
		return stopped
	case err != nil:
		return fmt.Errorf("waiting for the fake Nodes (%w): %w", err, last)
	}
	return nil
}

// deleteOtherNodes deletes the fake Nodes not in names.
func deleteOtherNodes(ctx context.Context, c client.Client, names []string) error {
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		return fmt.Errorf("listing Nodes: %w", err)
	}
	keep := map[string]bool{}
	for _, name := range names {
		keep[name] = true
	}
	for i := range nodes.Items {
		node := &nodes.Items[i]
		if node.Annotations[FakeNodeAnnotation] != "fake" || keep[node.Name] {
			continue
		}
		if err := c.Delete(ctx, node); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting fake Node %s: %w", node.Name, err)
		}
	}
	return nil
}

// NodesReady returns nil when every Node named is Ready and has no taints,
// else what is missing.
func NodesReady(ctx context.Context, c client.Client, names []string) error {
	for _, name := range names {
		var node corev1.Node
		if err := c.Get(ctx, client.ObjectKey{Name: name}, &node); err != nil {
			return fmt.Errorf("reading Node %s: %w", name, err)
		}
		if !isReady(node.Status.Conditions) {
			return fmt.Errorf("node %s is not Ready", name)
		}
		if len(node.Spec.Taints) > 0 {
			return fmt.Errorf("node %s still has the taint %s", name, node.Spec.Taints[0].Key)
		}
	}
	return nil
}

func isReady(conditions []corev1.NodeCondition) bool {
	for _, c := range conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// fakeNode is a Node for kwok to manage, with room for many pods.
func fakeNode(name string) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{FakeNodeAnnotation: "fake"},
			Labels: map[string]string{
				"kubernetes.io/hostname": name,
				"kubernetes.io/os":       "linux",
				"type":                   "kwok",
			},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}
