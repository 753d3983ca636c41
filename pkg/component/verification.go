package component

import (
	"errors"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ConditionSourceVerified says whether the source a component asks to
// verify (a signature, a provenance file) passed: True with what was
// verified with which key, False with why not. It is absent for a
// component that asks for no verification.
const ConditionSourceVerified = "SourceVerified"

// ReasonVerified is the reason of SourceVerified True.
const ReasonVerified = "Succeeded"

// recordVerification sets SourceVerified after a render: from what the
// generator reported of its source, or from the verification error that
// stopped the render. Any other render error leaves it as it was.
func (p *pass[T]) recordVerification(renderErr error) {
	status := p.component.GetStatus()
	generation := p.component.GetGeneration()
	var failed *manifests.VerificationError
	switch {
	case errors.As(renderErr, &failed):
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{Type: ConditionSourceVerified, Status: metav1.ConditionFalse,
			Reason: ReasonVerificationFailed, Message: bound.Message(failed.Error(), bound.ConditionLimit), ObservedGeneration: generation})
	case renderErr != nil:
	case p.source != nil && p.source.Verified != "":
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{Type: ConditionSourceVerified, Status: metav1.ConditionTrue,
			Reason: ReasonVerified, Message: bound.Message(p.source.Verified, bound.ConditionLimit), ObservedGeneration: generation})
	default:
		meta.RemoveStatusCondition(&status.Conditions, ConditionSourceVerified)
	}
}
