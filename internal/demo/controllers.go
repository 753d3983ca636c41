package demo

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// playControllers stands in for the kube-controller-manager and kubelet,
// which the local control plane does not run: Deployments become available
// and Jobs complete shortly after they appear.
func playControllers(ctx context.Context, c client.Client, namespace string) {
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			completeDeployments(ctx, c, namespace)
			completeJobs(ctx, c, namespace)
		}
	}
}

func completeDeployments(ctx context.Context, c client.Client, namespace string) {
	var list appsv1.DeploymentList
	if c.List(ctx, &list, client.InNamespace(namespace)) != nil {
		return
	}
	for i := range list.Items {
		d := &list.Items[i]
		replicas := int32(1)
		if d.Spec.Replicas != nil {
			replicas = *d.Spec.Replicas
		}
		if d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == replicas {
			continue
		}
		now := metav1.Now()
		d.Status = appsv1.DeploymentStatus{
			ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas,
			ReadyReplicas: replicas, AvailableReplicas: replicas,
			Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", LastUpdateTime: now, LastTransitionTime: now},
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable", LastUpdateTime: now, LastTransitionTime: now},
			},
		}
		_ = c.Status().Update(ctx, d)
	}
}

func completeJobs(ctx context.Context, c client.Client, namespace string) {
	var list batchv1.JobList
	if c.List(ctx, &list, client.InNamespace(namespace)) != nil {
		return
	}
	for i := range list.Items {
		j := &list.Items[i]
		if j.Status.CompletionTime != nil || j.DeletionTimestamp != nil {
			continue
		}
		now := metav1.Now()
		j.Status = batchv1.JobStatus{
			StartTime: &now, CompletionTime: &now, Succeeded: 1,
			Conditions: []batchv1.JobCondition{
				{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now},
				{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now},
			},
		}
		_ = c.Status().Update(ctx, j)
	}
}
