package clitest

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var namespaces int

// NewNamespace creates a namespace of its own for one test.
func NewNamespace() string {
	GinkgoHelper()
	namespaces++
	ns := &corev1.Namespace{}
	ns.Name = fmt.Sprintf("cli-%d-%d", GinkgoParallelProcess(), namespaces)
	Expect(Env.Client.Create(context.Background(), ns)).To(Succeed())
	return ns.Name
}

// ConfigMap returns the ConfigMap, or nil when it does not exist.
func ConfigMap(namespace, name string) *corev1.ConfigMap {
	GinkgoHelper()
	cm := &corev1.ConfigMap{}
	err := Env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, cm)
	if err != nil {
		Expect(client.IgnoreNotFound(err)).To(Succeed())
		return nil
	}
	return cm
}

// InventorySecret returns the release Secret of release name, or nil.
func InventorySecret(namespace, name string) *corev1.Secret {
	GinkgoHelper()
	secret := &corev1.Secret{}
	err := Env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: "wavekit." + name}, secret)
	if err != nil {
		Expect(client.IgnoreNotFound(err)).To(Succeed())
		return nil
	}
	return secret
}

// NothingIn asserts that a namespace holds no release Secret and no object
// with wavekit's owner label.
func NothingIn(namespace string) {
	GinkgoHelper()
	secrets := &corev1.SecretList{}
	Expect(Env.Client.List(context.Background(), secrets, client.InNamespace(namespace))).To(Succeed())
	Expect(secrets.Items).To(BeEmpty())
	configMaps := &corev1.ConfigMapList{}
	Expect(Env.Client.List(context.Background(), configMaps, client.InNamespace(namespace), client.HasLabels{"wavekit.dev/owner-id"})).To(Succeed())
	Expect(configMaps.Items).To(BeEmpty())
}

// Ungate waits until a pod labelled app=name in namespace carries a
// scheduling gate, as the Deployments of internal/cli/testdata/deployment
// and testdata/upgrade-hook make them, and removes the gates of all such
// pods: the scheduler then places them, kwok runs them, and the Deployment
// controller reports the rollout.
func Ungate(namespace, name string) {
	GinkgoHelper()
	Eventually(func() error {
		var pods corev1.PodList
		if err := Env.Client.List(context.Background(), &pods, client.InNamespace(namespace), client.MatchingLabels{"app": name}); err != nil {
			return err
		}
		gated := 0
		for i := range pods.Items {
			pod := &pods.Items[i]
			if len(pod.Spec.SchedulingGates) == 0 {
				continue
			}
			gated++
			pod.Spec.SchedulingGates = nil
			if err := Env.Client.Update(context.Background(), pod); err != nil {
				return err
			}
		}
		if gated == 0 {
			return fmt.Errorf("no pod of %s/%s waits at its scheduling gate", namespace, name)
		}
		return nil
	}).WithTimeout(time.Minute).Should(Succeed())
}
