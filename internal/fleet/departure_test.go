package fleet

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

func TestADeletionFailsOrWaits(t *testing.T) {
	for reason, want := range map[string]bool{
		component.ReasonTargetUnreachable: true,
		component.ReasonError:             true, // a cluster that refuses the copy's credentials
		component.ReasonRetrying:          true,
		component.ReasonDeleting:          false, // under way
		component.ReasonDeletionBlocked:   false, // other people's instances of its CRDs
	} {
		ready := &metav1.Condition{Type: component.ConditionReady, Status: metav1.ConditionFalse, Reason: reason}
		if got := failing(ready); got != want {
			t.Errorf("%s: failing %t, want %t", reason, got, want)
		}
	}
	if failing(nil) {
		t.Error("a Component not yet reconciled is not failing")
	}
}
