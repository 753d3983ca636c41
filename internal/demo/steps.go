package demo

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// steps creates the Component, waits for Ready, upgrades it (a rolling
// update gating the next wave), shows deletion blocked by a foreign instance, and deletion completing once it is gone; then installs
// a chart from a Helm repository on localhost.
func (d *demo) steps(ctx context.Context) error {
	if err := newNamespace(ctx, d.client); err != nil {
		return err
	}
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "demo"},
		Spec: v1alpha1.ComponentSpec{Source: "gizmo", Values: &apiextensionsv1.JSON{Raw: []byte(fmt.Sprintf(`{"replicas":%d,"settings":{"colour":"green","size":"large"}}`, demoReplicas))}}}
	d.stage(stageApply)
	d.say("creating Component %s/%s (source gizmo); the operator applies it wave by wave", namespace, c.Name)
	if err := d.client.Create(ctx, c); err != nil {
		return fmt.Errorf("creating the Component: %w", err)
	}
	if err := d.watch(ctx, c, "Ready", func(got *v1alpha1.Component) bool { return got.Status.State == component.StateReady }); err != nil {
		return err
	}
	if err := d.checkApplied(ctx); err != nil {
		return err
	}
	d.stage(stageUpgrade)
	if err := d.upgrade(ctx, c); err != nil {
		return err
	}
	d.stage(stageDelete)
	foreign := gizmo("someone-elses-gizmo")
	d.say("creating a foreign Gizmo that the component does not own, then deleting the Component")
	if err := d.client.Create(ctx, foreign); err != nil {
		return fmt.Errorf("creating the foreign Gizmo: %w", err)
	}
	if err := d.client.Delete(ctx, c); err != nil {
		return fmt.Errorf("deleting the Component: %w", err)
	}
	if err := d.watch(ctx, c, "deletion blocked", func(got *v1alpha1.Component) bool {
		cond := got.Status.ReadyCondition()
		return cond != nil && cond.Reason == component.ReasonDeletionBlocked
	}); err != nil {
		return err
	}
	d.say("deletion waits: nothing was deleted while a foreign Gizmo exists; removing it")
	if err := d.client.Delete(ctx, foreign); err != nil {
		return fmt.Errorf("deleting the foreign Gizmo: %w", err)
	}
	if err := d.watch(ctx, c, "gone", nil); err != nil {
		return err
	}
	if err := d.checkDeleted(ctx); err != nil {
		return err
	}
	d.stage(stageRepository)
	return d.repositorySteps(ctx)
}

// watch shows the Component until done says so (nil: until it is gone).
func (d *demo) watch(ctx context.Context, c *v1alpha1.Component, what string, done func(*v1alpha1.Component) bool) error {
	deadline := time.Now().Add(stepTimeout)
	for time.Now().Before(deadline) {
		var got v1alpha1.Component
		err := d.client.Get(ctx, client.ObjectKeyFromObject(c), &got)
		switch {
		case apierrors.IsNotFound(err) && done == nil:
			d.progress.settle()
			d.say("Component %s/%s is gone", c.Namespace, c.Name)
			return nil
		case err != nil:
			return fmt.Errorf("reading the Component: %w", err)
		}
		d.progress.show(&got)
		if done != nil && done(&got) {
			d.progress.settle()
			d.say("Component %s/%s: %s", c.Namespace, c.Name, what)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("the Component did not reach %q within %s", what, stepTimeout)
}

// checkApplied verifies what the waves should have left behind.
func (d *demo) checkApplied(ctx context.Context) error {
	var problems []string
	if !d.exists(ctx, "demo.wavekit.dev/v1", "Gizmo", "demo-gizmo") {
		problems = append(problems, "the managed Gizmo demo-gizmo is missing")
	}
	if d.exists(ctx, "batch/v1", "Job", "gizmo-migrate") {
		problems = append(problems, "the migration Job was not purged")
	}
	if !d.exists(ctx, "v1", "ConfigMap", "gizmo-settings") {
		problems = append(problems, "the ConfigMap gizmo-settings is missing")
	}
	if len(problems) > 0 {
		return fmt.Errorf("after apply: %s", strings.Join(problems, "; "))
	}
	d.say("checked: every object is there, the migration Job ran and was purged")
	var pods corev1.PodList
	if err := d.client.List(ctx, &pods, client.InNamespace(objectsNamespace)); err != nil {
		return fmt.Errorf("listing the pods: %w", err)
	}
	var running []string
	for _, pod := range pods.Items {
		if pod.Status.Phase == corev1.PodRunning && pod.DeletionTimestamp == nil {
			running = append(running, pod.Name+" on "+pod.Spec.NodeName)
		}
	}
	if len(running) == 0 {
		return fmt.Errorf("after apply, no pod of the Deployment runs")
	}
	d.say("pods the controllers made and the scheduler placed: %s", strings.Join(running, ", "))
	return nil
}

// checkNamespaceGone checks that the component's namespace, deleted in
// the last delete wave, is gone with everything in it: the wave ended only
// once the namespace controller had removed it.
func (d *demo) checkNamespaceGone(ctx context.Context) error {
	err := d.client.Get(ctx, client.ObjectKey{Name: objectsNamespace}, &corev1.Namespace{})
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("the Component is gone but its namespace %s is still there (%v)", objectsNamespace, err)
	}
	var pods corev1.PodList
	var sets appsv1.ReplicaSetList
	if err := d.client.List(ctx, &pods, client.InNamespace(objectsNamespace)); err != nil {
		return fmt.Errorf("listing the pods: %w", err)
	}
	if err := d.client.List(ctx, &sets, client.InNamespace(objectsNamespace)); err != nil {
		return fmt.Errorf("listing the ReplicaSets: %w", err)
	}
	if len(pods.Items) > 0 || len(sets.Items) > 0 {
		return fmt.Errorf("the Component is gone but %d pods and %d ReplicaSets of its Deployment are still there", len(pods.Items), len(sets.Items))
	}
	d.say("checked: no ReplicaSet or pod is left, and the namespace %s is gone: its delete wave ended only once the namespace controller had removed it", objectsNamespace)
	return nil
}

// checkDeleted verifies that no object of the component is left.
func (d *demo) checkDeleted(ctx context.Context) error {
	for _, o := range [][3]string{{"apps/v1", "Deployment", "gizmo-controller"}, {"v1", "ConfigMap", "gizmo-settings"}, {"v1", "Secret", "gizmo-credentials"}} {
		if d.exists(ctx, o[0], o[1], o[2]) {
			return fmt.Errorf("after deletion, %s %s is still there", o[1], o[2])
		}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	err := d.client.Get(ctx, client.ObjectKey{Name: "gizmos.demo.wavekit.dev"}, crd)
	if err == nil && crd.DeletionTimestamp == nil {
		return fmt.Errorf("after deletion, the Gizmo CRD is still there")
	}
	d.say("checked: every object of the component is deleted")
	return d.checkNamespaceGone(ctx)
}

func (d *demo) exists(ctx context.Context, apiVersion, kind, name string) bool {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	err := d.client.Get(ctx, client.ObjectKey{Namespace: objectsNamespace, Name: name}, u)
	return err == nil && u.GetDeletionTimestamp() == nil
}

func gizmo(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("demo.wavekit.dev/v1")
	u.SetKind("Gizmo")
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}
