package component_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// DESIGN invariant 11: every message fits where it is written.
var _ = Describe("messages that always fit", func() {
	It("writes the status of a component whose 2000 objects are all invalid, its messages bounded", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		startOperator(ctx, ns, component.ReconcilerOptions{})
		// 2000 ConfigMaps with a generateName: the engine refuses each
		// before anything reaches the API server, one line per object.
		c := newComponent(ns, "many", map[string]any{"unnamed": 2000})
		Expect(env.Client.Create(ctx, c)).To(Succeed())

		eventually(func() component.State { return getComponent(ctx, c).Status.State }).Should(Equal(component.StateError))
		got := getComponent(ctx, c)
		Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		message := got.Status.ReadyCondition().Message
		Expect(len(message)).To(BeNumerically("<=", 32768))
		Expect(message).To(HavePrefix(`invalid manifests: object 1 (v1 ConfigMap): generateName "unnamed-" is not supported`))
		kept, more := keptAndMore(message)
		Expect(kept+more).To(Equal(2000), "the lines kept and the count of the others")
		Expect(kept).To(BeNumerically(">", 100), "as many lines as fit")

		var note string
		eventually(func() string {
			note = warningNote(ctx, ns, component.ReasonError)
			return note
		}).ShouldNot(BeEmpty())
		Expect(len(note)).To(BeNumerically("<=", 1024))
		kept, more = keptAndMore(note)
		Expect(kept + more).To(Equal(2000))
	})

	It("stops writing status fields the CRD drops, and says which and what to do", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		// The Component CRD as generated before the framework wrote
		// attempt, history and lastGoodRender: the API server prunes them.
		pruningGroup := schema.GroupVersion{Group: "pruning.test.wavekit.dev", Version: "v1alpha1"}
		scheme, cl := installComponentCRD(ctx, pruningGroup, func(status apiextensionsv1.JSONSchemaProps) {
			for _, field := range []string{"attempt", "history", "lastGoodRender"} {
				delete(status.Properties, field)
			}
		})
		requests := apicount.New()
		mgr, err := ctrl.NewManager(requests.Wrap(env.Config), componenttest.ManagerOptions(scheme))
		Expect(err).NotTo(HaveOccurred())
		r := component.NewReconciler[*v1alpha1.Component](operator, &valuesGenerator{}, component.ReconcilerOptions{
			Filter:          func(c component.Component) bool { return c.GetNamespace() == ns },
			RequeueInterval: 50 * time.Millisecond, // a no-op reconcile after another
		})
		Expect(r.SetupWithManager(mgr)).To(Succeed())
		componenttest.RunManager(ctx, mgr)

		c := newComponent(ns, "pruned", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		Expect(cl.Create(ctx, c)).To(Succeed())
		eventually(func(g Gomega) {
			var got v1alpha1.Component
			g.Expect(cl.Get(ctx, client.ObjectKeyFromObject(c), &got)).To(Succeed())
			g.Expect(got.Status.State).To(Equal(component.StateReady))
			g.Expect(got.Status.LastGoodRender).To(BeNil(), "pruned")
		}).Should(Succeed())
		pruned := func() []string {
			var notes []string
			for _, note := range eventNotes(ctx, ns) {
				if strings.HasPrefix(note, "Warning "+component.ReasonStatusFieldsPruned+": ") {
					notes = append(notes, note)
				}
			}
			return notes
		}
		eventually(func() string { return strings.Join(pruned(), "\n") }).Should(And(
			ContainSubstring("the CustomResourceDefinition components.pruning.test.wavekit.dev drops the status fields "),
			ContainSubstring("attempt"), ContainSubstring("history"),
			ContainSubstring("regenerate it with controller-gen (make manifests) and apply it")))
		said := len(pruned())

		readyBefore := counter("wavekit_reconciles_total", map[string]string{"operator": operator, "result": "Ready"})
		requests.Reset()
		eventually(func() float64 {
			return counter("wavekit_reconciles_total", map[string]string{"operator": operator, "result": "Ready"})
		}).Should(BeNumerically(">=", readyBefore+5))
		Expect(requests.Count("update", "components/status")).To(BeZero(), "no-op reconciles wrote the status: %s", requests)
		Expect(pruned()).To(HaveLen(said), "said again")
	})

	It("says that the CRD may be out of date when the API server rejects the status", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		// The Component CRD as a framework user may still have it: one
		// generated before inventory items left out an empty group and
		// digest, which it requires.
		staleScheme, staleClient := installStaleComponentCRD(ctx)
		mgr, err := ctrl.NewManager(env.Config, componenttest.ManagerOptions(staleScheme))
		Expect(err).NotTo(HaveOccurred())
		r := component.NewReconciler[*v1alpha1.Component](operator, &valuesGenerator{}, component.ReconcilerOptions{
			Filter: func(c component.Component) bool { return c.GetNamespace() == ns },
		})
		Expect(r.SetupWithManager(mgr)).To(Succeed())
		componenttest.RunManager(ctx, mgr)

		// 300 objects, as in the field: two rejected fields each.
		configMaps := map[string]any{}
		for i := range 300 {
			configMaps[fmt.Sprintf("cm-%03d", i)] = map[string]any{}
		}
		c := newComponent(ns, "stale", map[string]any{"configMaps": configMaps})
		Expect(staleClient.Create(ctx, c)).To(Succeed())

		hint := `writing status of ` + ns + `/stale: the API server rejected it: the CustomResourceDefinition components\.stale\.test\.wavekit\.dev may be out of date with the framework's Status schema \(it rejected status\.inventory\[0\]\.(group|digest)\); regenerate the CRD with controller-gen \(make manifests\) and apply it\n`
		var note string
		eventually(func() string {
			note = warningNote(ctx, ns, component.ReasonStatusRejected)
			return note
		}).Should(MatchRegexp(hint))
		Expect(note).To(ContainSubstring("\nstatus.inventory[0].digest: Required value\n"))
		Expect(len(note)).To(BeNumerically("<=", 1024))
		kept, more := keptAndMore(note)
		Expect(kept-1+more).To(BeNumerically(">=", 600), "after the hint, two fields of each of 300 items, kept or counted")

		// The outcome is stored without the inventory the CRD refuses, and
		// nothing was created that the stored inventory does not record.
		eventually(func(g Gomega) {
			var got v1alpha1.Component
			g.Expect(staleClient.Get(ctx, client.ObjectKeyFromObject(c), &got)).To(Succeed())
			g.Expect(got.Status.State).To(Equal(component.StateError))
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(got.Status.ReadyCondition().Message).To(MatchRegexp(hint))
			g.Expect(len(got.Status.ReadyCondition().Message)).To(BeNumerically("<=", 32768))
			g.Expect(got.Status.Inventory).To(BeEmpty())
		}).Should(Succeed())
		Expect(getConfigMap(ctx, ns, "cm-000")).To(BeNil())
	})
})

// keptAndMore counts the lines of a bounded message before its last, which
// must say "… and N more", and returns N.
func keptAndMore(message string) (int, int) {
	GinkgoHelper()
	lines := strings.Split(message, "\n")
	m := regexp.MustCompile(`^… and ([0-9]+) more$`).FindStringSubmatch(lines[len(lines)-1])
	Expect(m).NotTo(BeNil(), "the last line of %q", message)
	more, err := strconv.Atoi(m[1])
	Expect(err).NotTo(HaveOccurred())
	return len(lines) - 1, more
}

// warningNote returns the note of a Warning Event of reason in ns, or "".
func warningNote(ctx context.Context, ns, reason string) string {
	GinkgoHelper()
	var list eventsv1.EventList
	Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	for _, e := range list.Items {
		if e.Type == "Warning" && e.Reason == reason {
			return e.Note
		}
	}
	return ""
}

// staleGroup serves the Component type under a CRD that requires what the
// framework's Status no longer always sets.
var staleGroup = schema.GroupVersion{Group: "stale.test.wavekit.dev", Version: "v1alpha1"}

// installStaleComponentCRD installs the generated Component CRD in
// staleGroup, its inventory items requiring group and digest, and returns a
// scheme and a client that know v1alpha1.Component by that group.
func installStaleComponentCRD(ctx context.Context) (*runtime.Scheme, client.Client) {
	GinkgoHelper()
	return installComponentCRD(ctx, staleGroup, func(status apiextensionsv1.JSONSchemaProps) {
		items := status.Properties["inventory"].Items.Schema
		items.Required = append(items.Required, "group", "digest")
	})
}

// installComponentCRD installs the generated Component CRD in group, its
// status schema changed by edit, and returns a scheme and a client that know
// v1alpha1.Component by that group.
func installComponentCRD(ctx context.Context, group schema.GroupVersion, edit func(status apiextensionsv1.JSONSchemaProps)) (*runtime.Scheme, client.Client) {
	GinkgoHelper()
	s := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(s)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(s)).To(Succeed())
	s.AddKnownTypes(group, &v1alpha1.Component{}, &v1alpha1.ComponentList{})
	metav1.AddToGroupVersion(s, group)
	c, err := client.New(env.Config, client.Options{Scheme: s})
	Expect(err).NotTo(HaveOccurred())

	data, err := os.ReadFile(filepath.Join(testcluster.ModuleRoot(), "config", "crd", "bases", "wavekit.dev_components.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var crd apiextensionsv1.CustomResourceDefinition
	Expect(yaml.Unmarshal(data, &crd)).To(Succeed())
	crd.Name = "components." + group.Group
	crd.Spec.Group = group.Group
	for _, v := range crd.Spec.Versions {
		edit(v.Schema.OpenAPIV3Schema.Properties["status"])
	}
	if err := c.Create(ctx, &crd); !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
	eventually(func() bool {
		var got apiextensionsv1.CustomResourceDefinition
		Expect(c.Get(ctx, client.ObjectKey{Name: crd.Name}, &got)).To(Succeed())
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	}).Should(BeTrue())
	// Discovery may serve the new group a moment after the CRD is
	// Established: until then a client's mapper finds no such kind.
	eventually(func() error {
		_, err := c.RESTMapper().RESTMapping(schema.GroupKind{Group: group.Group, Kind: "Component"}, group.Version)
		return err
	}).Should(Succeed())
	return s, c
}
