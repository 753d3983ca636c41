package fleettest

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// fleetLabel is the label of the cluster Secrets that the suites' sets
// select their clusters by.
const fleetLabel = "fleet"

// Get is the set as the hub holds it now.
func (h *Hub) Get(set *v1alpha1.ComponentSet) *v1alpha1.ComponentSet {
	GinkgoHelper()
	got := &v1alpha1.ComponentSet{}
	Expect(h.Client.Get(context.Background(), client.ObjectKeyFromObject(set), got)).To(Succeed())
	return got
}

// Update changes the set, trying again on conflicts.
func (h *Hub) Update(set *v1alpha1.ComponentSet, change func(*v1alpha1.ComponentSet)) {
	GinkgoHelper()
	ctx := context.Background()
	Eventually(func() error {
		got := &v1alpha1.ComponentSet{}
		if err := h.Client.Get(ctx, client.ObjectKeyFromObject(set), got); err != nil {
			return err
		}
		change(got)
		return h.Client.Update(ctx, got)
	}).WithTimeout(Timeout).Should(Succeed())
}

// ReadyReason is "<status>/<reason>" of the set's Ready condition at its
// current generation ("stale" before the set observed it).
func (h *Hub) ReadyReason(set *v1alpha1.ComponentSet) string {
	GinkgoHelper()
	got := h.Get(set)
	ready := meta.FindStatusCondition(got.Status.Conditions, component.ConditionReady)
	if ready == nil || ready.ObservedGeneration != got.Generation {
		return "stale"
	}
	return string(ready.Status) + "/" + ready.Reason
}

// EventReasons are the reasons of the Events about the set.
func (h *Hub) EventReasons(set *v1alpha1.ComponentSet) []string {
	GinkgoHelper()
	var reasons []string
	for _, e := range h.events(set) {
		reasons = append(reasons, e.Reason)
	}
	return reasons
}

// EventNotes are the notes of the Events of reason about the set.
func (h *Hub) EventNotes(set *v1alpha1.ComponentSet, reason string) []string {
	GinkgoHelper()
	var notes []string
	for _, e := range h.events(set) {
		if e.Reason == reason {
			notes = append(notes, e.Note)
		}
	}
	return notes
}

// events are the Events about the set.
func (h *Hub) events(set *v1alpha1.ComponentSet) []eventsv1.Event {
	GinkgoHelper()
	var list eventsv1.EventList
	Expect(h.Client.List(context.Background(), &list, client.InNamespace(set.Namespace))).To(Succeed())
	var about []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.Kind == "ComponentSet" && e.Regarding.Name == set.Name {
			about = append(about, e)
		}
	}
	return about
}

// Relabel sets the label fleetLabel of the cluster Secret namespace/cluster
// to value, trying again on conflicts.
func (h *Hub) Relabel(namespace, cluster, value string) {
	GinkgoHelper()
	ctx := context.Background()
	Eventually(func() error {
		var s corev1.Secret
		if err := h.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: cluster}, &s); err != nil {
			return err
		}
		s.Labels[fleetLabel] = value
		return h.Client.Update(ctx, &s)
	}).WithTimeout(Timeout).Should(Succeed())
}

// Values are the values of a set's template with greeting, what the
// suites' sources put in their ConfigMap.
func Values(greeting string) *apiextensionsv1.JSON {
	GinkgoHelper()
	return ValuesWith(greeting, nil)
}

// ValuesWith are Values of greeting with more.
func ValuesWith(greeting string, more map[string]any) *apiextensionsv1.JSON {
	GinkgoHelper()
	values := map[string]any{"greeting": greeting}
	for k, v := range more {
		values[k] = v
	}
	raw, err := json.Marshal(values)
	Expect(err).NotTo(HaveOccurred())
	return &apiextensionsv1.JSON{Raw: raw}
}

// ConfigData is the data of the ConfigMap namespace/name on member (nil if
// there is none).
func ConfigData(member *testcluster.Env, namespace, name string) map[string]string {
	var cm corev1.ConfigMap
	if err := member.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, &cm); err != nil {
		return nil
	}
	return cm.Data
}

// Greeting is the greeting of the ConfigMap namespace/name on member,
// "gone" if there is none, or the error of reading it.
func Greeting(member *testcluster.Env, namespace, name string) string {
	var cm corev1.ConfigMap
	err := member.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, &cm)
	if apierrors.IsNotFound(err) {
		return "gone"
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return cm.Data["greeting"]
}
