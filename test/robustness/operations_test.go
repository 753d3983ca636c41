package robustness_test

import (
	"encoding/json"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/invariants"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// opTimeout bounds one operation, which retries while a fault keeps the
// API server away.
const opTimeout = 3 * time.Minute

func retry(f func() error) {
	GinkgoHelper()
	Eventually(f).WithTimeout(opTimeout).WithPolling(250 * time.Millisecond).Should(Succeed())
}

func jsonValues(values map[string]any) *apiextensionsv1.JSON {
	if values == nil {
		return nil
	}
	raw, err := json.Marshal(values)
	Expect(err).NotTo(HaveOccurred())
	return &apiextensionsv1.JSON{Raw: raw}
}

// operate applies an operation step.
func (r *run) operate(s step) {
	GinkgoHelper()
	switch s.op {
	case opCreate:
		retry(func() error { return client.IgnoreAlreadyExists(hub.Client.Create(ctx, r.componentFor(s.comp))) })
	case opChange, opWaves, opPolicy, opHealth, opRollback, opChart, opSuspend, opDrift, opRelabel:
		r.updateComponent(s.comp.name, func(c *v1alpha1.Component) { r.setSpec(c, s.comp) })
	case opRequest:
		r.updateComponent(s.comp.name, func(c *v1alpha1.Component) {
			metav1.SetMetaDataAnnotation(&c.ObjectMeta, manifests.Key(r.operator, component.AnnotationReconcileRequestedAt), time.Now().Format(time.RFC3339Nano))
		})
	case opDelete:
		retry(func() error {
			return client.IgnoreNotFound(hub.Client.Delete(ctx, &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: s.comp.name}}))
		})
	case opHandEdit, opHandDelete:
		r.handEdit(s)
	case opForeign:
		r.writeForeign(s.target, s.n)
	case opInstance:
		r.foreignInstance(s.comp, s.n == 1, s.target == "blocked")
	case opCluster:
		r.relabelCluster(s.target, s.n == 1)
	}
}

// componentFor is the Component the model's c describes.
func (r *run) componentFor(c *comp) *v1alpha1.Component {
	out := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: c.name}}
	r.setSpec(out, c)
	return out
}

// setSpec makes the labels and spec of out say what c says.
func (r *run) setSpec(out *v1alpha1.Component, c *comp) {
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	out.Labels[manifests.Key(r.operator, component.LabelShard)] = c.shard
	out.Spec.Source, out.Spec.Chart = c.source, nil
	out.Spec.Values = jsonValues(c.values(r.operator, r.ns))
	out.Spec.HealthChecks, out.Spec.Remediation = c.healthChecks(), nil
	if c.source == sourceWaves {
		out.Spec.Remediation = &component.Remediation{Strategy: component.RemediateRollback}
	}
	out.Spec.Suspend = c.suspended
	out.Spec.Drift.Mode = ""
	if c.warn {
		out.Spec.Drift.Mode = manifests.DriftWarn
	}
	switch c.source {
	case sourceHooks:
		out.Spec.Source, out.Spec.Chart = "", &v1alpha1.ChartSource{Repository: charts.URL, Name: "hooks", Version: c.chartVersion}
	case sourceKust:
		out.Spec.Patches = []v1alpha1.Patch{{Patch: c.kustPatch(), Target: &manifests.ObjectSelector{Kind: "ConfigMap", Name: "kust-config"}}}
	case sourceMember:
		out.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: c.member, Key: "value"}
	}
}

// updateComponent changes a Component, retrying on conflicts and faults.
func (r *run) updateComponent(name string, change func(*v1alpha1.Component)) {
	GinkgoHelper()
	retry(func() error {
		var c v1alpha1.Component
		if err := hub.Client.Get(ctx, client.ObjectKey{Namespace: r.ns, Name: name}, &c); err != nil {
			return err
		}
		change(&c)
		return hub.Client.Update(ctx, &c)
	})
}

// handEdit changes or deletes an owned ConfigMap as a person with kubectl
// would; the history counts the write as the test's own.
func (r *run) handEdit(s step) {
	GinkgoHelper()
	c, cluster := hub.Client, "hub"
	if s.comp.source == sourceMember {
		c, cluster = members[memberIndex(s.comp.member)].Client, s.comp.member
	}
	retry(func() error {
		var cm corev1.ConfigMap
		err := c.Get(ctx, client.ObjectKey{Namespace: r.ns, Name: s.target}, &cm)
		if apierrors.IsNotFound(err) {
			return nil // not applied yet, or suspended
		}
		if err != nil {
			return err
		}
		if s.op == opHandDelete {
			err = c.Delete(ctx, &cm, client.Preconditions{UID: &cm.UID})
			return client.IgnoreNotFound(err)
		}
		cm.Data = map[string]string{"edited": "by hand"}
		if err := c.Update(ctx, &cm, client.FieldOwner("kubectl-edit")); err != nil {
			return err
		}
		r.ownWrite(cluster, "ConfigMap", &cm)
		return nil
	})
}

func memberIndex(name string) int {
	var i int
	_, _ = fmt.Sscanf(name, "member-%d", &i)
	return i - 1
}

// writeForeign creates or changes a ConfigMap of someone else beside the
// owned ones: the operator must never touch it.
func (r *run) writeForeign(name string, n int) {
	GinkgoHelper()
	retry(func() error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: name}}
		err := hub.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm)
		cm.Data = map[string]string{"version": fmt.Sprint(n)}
		switch {
		case apierrors.IsNotFound(err):
			err = hub.Client.Create(ctx, cm)
		case err == nil:
			err = hub.Client.Update(ctx, cm)
		}
		if err != nil {
			return err
		}
		r.mu.Lock()
		r.foreign["hub/ConfigMap/"+r.ns+"/"+name] = true
		r.mu.Unlock()
		r.ownWrite("hub", "ConfigMap", cm)
		return nil
	})
}

// relabelCluster puts a member cluster's Secret into the set's selection
// or takes it out.
func (r *run) relabelCluster(name string, in bool) {
	GinkgoHelper()
	retry(func() error {
		var secret corev1.Secret
		if err := hub.Client.Get(ctx, client.ObjectKey{Namespace: r.ns, Name: name}, &secret); err != nil {
			return err
		}
		if in {
			secret.Labels["soak"] = "in"
		} else {
			delete(secret.Labels, "soak")
		}
		return hub.Client.Update(ctx, &secret)
	})
}

// foreignInstance creates or deletes the instance "theirs" of the CRD of a
// crds Component, as a user of the type would. Before it deletes the one
// that holds back a deleted Component's deletion, it checks that the
// deletion did not start: the CRD is there and not being deleted (that the
// Component says DeletionBlocked is checked at each quiet point).
func (r *run) foreignInstance(c *comp, create, blocked bool) {
	GinkgoHelper()
	instance := &unstructured.Unstructured{}
	instance.SetAPIVersion(crdGroup + "/v1")
	instance.SetKind(c.kind())
	instance.SetNamespace(r.ns)
	instance.SetName("theirs")
	if blocked {
		r.checkBlocked(c)
	}
	retry(func() error {
		if create {
			return client.IgnoreAlreadyExists(hub.Client.Create(ctx, instance.DeepCopy()))
		}
		return client.IgnoreNotFound(hub.Client.Delete(ctx, instance.DeepCopy()))
	})
}

// checkBlocked records a violation of the deletion invariant when the
// deletion of c, which a foreign instance holds back, started: its CRD is
// gone or being deleted.
func (r *run) checkBlocked(c *comp) {
	GinkgoHelper()
	retry(func() error {
		var crd apiextensionsv1.CustomResourceDefinition
		err := hub.Client.Get(ctx, client.ObjectKey{Name: c.crdName()}, &crd)
		switch {
		case apierrors.IsNotFound(err):
			r.violate(invariants.Violation{Invariant: "deletion", Object: "CustomResourceDefinition " + c.crdName(),
				Message: "deleted while a foreign instance of it existed"})
		case err != nil:
			return err
		case crd.DeletionTimestamp != nil:
			r.violate(invariants.Violation{Invariant: "deletion", Object: "CustomResourceDefinition " + c.crdName(),
				Message: fmt.Sprintf("being deleted since %s while a foreign instance of it exists", crd.DeletionTimestamp.Format(time.RFC3339))})
		}
		return nil
	})
}
