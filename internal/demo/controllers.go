package demo

// The stand-ins below are left for the suites and benchmarks that still run
// against the bare API server (test/helm, test/security, the CLI's apply spec,
// the scale benchmarks); the demo itself runs on the real controllers.

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PlayDeployments stands in for the Deployment controller with a watch: it
// marks every Deployment of namespace available as soon as it appears or
// changes, until ctx ends. Benchmarks use it, where a poll would add delay.
func PlayDeployments(ctx context.Context, c client.WithWatch, namespace string) {
	for ctx.Err() == nil {
		w, err := c.Watch(ctx, &appsv1.DeploymentList{}, client.InNamespace(namespace))
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for ev := range w.ResultChan() {
			if d, ok := ev.Object.(*appsv1.Deployment); ok && (ev.Type == watch.Added || ev.Type == watch.Modified) && !IsAvailable(d) {
				d.Status = AvailableStatus(d)
				_ = c.Status().Update(ctx, d)
			}
		}
		w.Stop()
	}
}

// CompleteDeployments marks every Deployment of namespace available, as the
// Deployment controller would once its replicas run.
func CompleteDeployments(ctx context.Context, c client.Client, namespace string) {
	var list appsv1.DeploymentList
	if c.List(ctx, &list, client.InNamespace(namespace)) != nil {
		return
	}
	for i := range list.Items {
		d := &list.Items[i]
		if IsAvailable(d) {
			continue
		}
		d.Status = AvailableStatus(d)
		_ = c.Status().Update(ctx, d)
	}
}

// IsAvailable tells whether d's status says that its current generation
// has every replica available.
func IsAvailable(d *appsv1.Deployment) bool {
	return d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == replicas(d)
}

// AvailableStatus is the status a Deployment controller writes once every
// replica of d's current generation is available.
func AvailableStatus(d *appsv1.Deployment) appsv1.DeploymentStatus {
	n, now := replicas(d), metav1.Now()
	return appsv1.DeploymentStatus{
		ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", LastUpdateTime: now, LastTransitionTime: now},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable", LastUpdateTime: now, LastTransitionTime: now},
		},
	}
}

func replicas(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas != nil {
		return *d.Spec.Replicas
	}
	return 1
}

// CompletedStatus is the status a Job controller writes once the Job's one
// pod has succeeded.
func CompletedStatus() batchv1.JobStatus {
	now := metav1.Now()
	return batchv1.JobStatus{
		StartTime: &now, CompletionTime: &now, Succeeded: 1,
		Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now},
		},
	}
}
