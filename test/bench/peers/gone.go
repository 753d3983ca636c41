package main

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
)

// chartResources are what the bench chart makes, and what its Deployments make.
var chartResources = []schema.GroupVersionResource{
	{Version: "v1", Resource: "configmaps"},
	{Version: "v1", Resource: "services"},
	{Version: "v1", Resource: "serviceaccounts"},
	{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"},
	{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
	{Group: "apps", Version: "v1", Resource: "replicasets"},
	{Version: "v1", Resource: "pods"},
}

// chartSelector selects every object the bench chart makes.
const chartSelector = "app.kubernetes.io/name=" + chartName

// waitObjectsGone waits until no object of the chart is left in the bench
// namespace, and returns the later of since and when it saw none left.
func (r *toolRun) waitObjectsGone(ctx context.Context, since time.Time) (time.Time, error) {
	var left string
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, gvr := range chartResources {
			list, err := r.cluster.dynamic.Resource(gvr).Namespace(benchNamespace).List(ctx, metav1.ListOptions{LabelSelector: chartSelector, Limit: 1})
			if err != nil {
				return false, err
			}
			if len(list.Items) > 0 {
				left = gvr.Resource + " " + list.Items[0].GetName()
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("waiting until every object is gone (%s is left): %w", left, err)
	}
	return latest(since, time.Now()), nil
}
