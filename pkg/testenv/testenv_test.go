package testenv_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/testenv"
)

// A Deployment created in the environment becomes Available by the real
// controllers, scheduler and kwok's Nodes: what an operator's test waits for.
// Stop leaves nothing behind: the folder of the parts' logs, which holds an
// administrator's kubeconfig and the cluster's CA, is removed.
func TestDeploymentBecomesAvailable(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	env := &testenv.Environment{Nodes: 1}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
		left, err := filepath.Glob(filepath.Join(tmp, "wavekit-testenv-*"))
		if err != nil || len(left) != 0 {
			t.Errorf("after Stop the cluster's folders are left: %v %v", left, err)
		}
	})
	if left, _ := filepath.Glob(filepath.Join(tmp, "wavekit-testenv-*", "admin.kubeconfig")); len(left) != 1 {
		t.Fatalf("the cluster's folder is not under TMPDIR (%v): the check after Stop would see nothing", left)
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	labels := map[string]string{"app": "web"}
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(2)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	if err := c.Create(ctx, deployment); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(deployment), deployment); err != nil {
			return false, err
		}
		return deployment.Status.AvailableReplicas == 2, nil
	})
	if err != nil {
		t.Fatalf("the Deployment did not become Available: %v; status %+v", err, deployment.Status)
	}
	if got := env.NodeNames(); len(got) != 1 || got[0] != "kwok-node-0" {
		t.Errorf("NodeNames() = %v, want [kwok-node-0]", got)
	}
}

// With APIServerOnly nothing reconciles: a Deployment is stored and stays
// without replicas, as in controller-runtime's envtest.
func TestAPIServerOnlyRunsNoControllers(t *testing.T) {
	env := &testenv.Environment{APIServerOnly: true}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var nodes corev1.NodeList
	if err := c.List(context.Background(), &nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 0 || env.NodeNames() != nil {
		t.Errorf("an API server alone has Nodes: %d, NodeNames %v", len(nodes.Items), env.NodeNames())
	}
}
