package definition

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/rollout"
)

// The halt's Event goes through the manager's recorder, as the
// controller's does: client-go counts an Event of the same object, type,
// reason and action as a repeat of the first (its series), whatever the
// note says.
var _ = Describe("the Event of a halted rollout", func() {
	It("names the instance the definition's status names, when the halt moves from one instance to another", func(ctx SpecContext) {
		mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
		Expect(err).NotTo(HaveOccurred())
		r := &reconciler{recorder: mgr.GetEventRecorder("wavekit.dev"), opts: Options{Name: "wavekit.dev"}}
		two := intstr.FromInt32(2)
		def := &v1alpha1.ComponentDefinition{ObjectMeta: metav1.ObjectMeta{Name: "databases.halt.example.com"},
			Spec: v1alpha1.ComponentDefinitionSpec{Group: "halt.example.com", Names: v1alpha1.DefinitionNames{Kind: "Database", Plural: "databases"},
				Source:  v1alpha1.DefinitionSource{Source: "db"},
				Rollout: v1alpha1.DefinitionRollout{Waves: []v1alpha1.RolloutWave{{Name: "canary", Count: &two}}}}}
		Expect(env.Client.Create(ctx, def)).To(Succeed())
		def.Status.APIVersion, def.Status.Kind = "halt.example.com/v1alpha1", "Database"

		// pass is a pass of the controller over instances running
		// revision 2 (a and b, the canary) or 1 (c and d): the status
		// the rollout steps to, then the Event.
		pass := func(failing ...string) {
			GinkgoHelper()
			var instances []rollout.Instance
			for _, name := range []string{"a", "b", "c", "d"} {
				i := rollout.Instance{ID: "fleet/" + name, Running: 1, Ready: true}
				if name == "a" || name == "b" {
					i.Running = 2
				}
				for _, f := range failing {
					if f == name {
						i.Ready, i.Failed, i.Reason, i.Message = false, true, "Error", "the health check of Deployment "+name+" failed"
					}
				}
				instances = append(instances, i)
			}
			before := def.DeepCopy()
			st, err := rollout.Step(def.Spec.Rollout, 2, def.Status.Rollout, instances)
			Expect(err).NotTo(HaveOccurred())
			def.Status.Rollout = &st
			r.tell(before, def)
		}
		notes := func() []string {
			var list eventsv1.EventList
			Expect(env.Client.List(ctx, &list, client.InNamespace(metav1.NamespaceDefault))).To(Succeed())
			var out []string
			for _, e := range list.Items {
				if e.Regarding.Name == def.Name && e.Reason == ReasonRolloutHalted {
					out = append(out, e.Note)
				}
			}
			return out
		}
		named := func() string {
			GinkgoHelper()
			Expect(def.Status.Rollout.Phase).To(Equal(v1alpha1.RolloutHalted))
			return def.Status.Rollout.Failed.Instance
		}

		def.Status.Rollout = &v1alpha1.DefinitionRolloutStatus{Revision: 2, From: 1, Phase: v1alpha1.RolloutProgressing, Wave: 1}
		pass("b")
		Expect(named()).To(Equal("fleet/b"))
		Eventually(notes).WithContext(ctx).WithTimeout(30 * time.Second).Should(ConsistOf(ContainSubstring("fleet/b failed at revision 2")))

		pass("a", "b")
		Eventually(notes).WithContext(ctx).WithTimeout(30*time.Second).Should(ContainElement(ContainSubstring(named()+" failed at revision 2")),
			"a fails too: an Event names the instance the status names")

		pass("a")
		Expect(named()).To(Equal("fleet/a"))
		Eventually(notes).WithContext(ctx).WithTimeout(30*time.Second).Should(ContainElement(ContainSubstring("fleet/a failed at revision 2 (Error): the health check of Deployment a failed")),
			"b recovers and a still fails: an Event names a")
		for _, note := range notes() {
			Expect(len(note)).To(BeNumerically("<=", 1024))
			Expect(strings.Count(note, " failed at revision 2")).To(Equal(1), note)
		}
	})
})
