package component_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// Issue 67: a ValidatingAdmissionPolicy that refused a status write was
// reported as "the CRD may be out of date, regenerate it", which sent the
// operator's owner the wrong way.
var _ = Describe("a status write that admission refuses", func() {
	It("is reported as an admission refusal that names the policy and its binding, not as an out-of-date CRD", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		policy := freezeStatusPolicy(ctx, ns)
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "frozen", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())

		refusal := `writing status of ` + ns + `/frozen: admission refused it: ValidatingAdmissionPolicy '` + policy +
			`' with binding '` + policy + `' denied request: status writes are frozen in ` + ns
		var note string
		eventually(func() string {
			note = warningNote(ctx, ns, component.ReasonStatusAdmissionRefused)
			return note
		}).Should(ContainSubstring(refusal))
		Expect(note).NotTo(ContainSubstring("regenerate"))
		Expect(note).NotTo(ContainSubstring("out of date"))
		Expect(warningNote(ctx, ns, component.ReasonStatusRejected)).To(BeEmpty())
	})
})

// freezeStatusPolicy refuses every status write of a Component in ns, by a
// ValidatingAdmissionPolicy and its binding of one name, which it returns
// once the API server enforces them.
func freezeStatusPolicy(ctx context.Context, ns string) string {
	GinkgoHelper()
	name := "freeze-status-" + ns
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{v1alpha1.GroupVersion.Group},
						APIVersions: []string{"*"}, Resources: []string{"components/status"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "object.metadata.namespace != '" + ns + "'",
				Message:    "status writes are frozen in " + ns,
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
	}
	Expect(env.Client.Create(ctx, policy)).To(Succeed())
	Expect(env.Client.Create(ctx, binding)).To(Succeed())
	DeferCleanup(func() {
		Expect(env.Client.Delete(ctx, binding)).To(Succeed())
		Expect(env.Client.Delete(ctx, policy)).To(Succeed())
	})
	// The API server enforces them once its informers have them: a probe
	// Component's status write is refused then.
	probe := newComponent(ns, "probe", nil)
	Expect(env.Client.Create(ctx, probe)).To(Succeed())
	eventually(func() error {
		got := getComponent(ctx, probe)
		got.Status.State = component.StatePending
		return env.Client.Status().Update(ctx, got)
	}).Should(MatchError(ContainSubstring("status writes are frozen")))
	return name
}
