package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/dashboard"
)

// A ComponentSet's status and its Components' are written here as the
// operator would write them: wave 1 (east) done, wave 2 held by west, with
// north unreachable, and one selected cluster without a Component yet.
var _ = Describe("a ComponentSet on the page", Ordered, func() {
	const ns = "fleet"
	var page *httptest.Server
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "edge"}}
	setURL := func() string { return page.URL + "/s/componentset.wavekit.dev/fleet/edge" }

	BeforeAll(func() {
		h, err := startPage(ctx, env.Config, dashboard.Options{Log: zap.New(zap.WriteTo(GinkgoWriter)), Sets: []dashboard.SetKind{{
			Kind: v1alpha1.GroupVersion.WithKind("ComponentSet"), Member: componentKind,
			ClusterAnnotation: "wavekit.dev/set-cluster", WaveAnnotation: "wavekit.dev/set-wave"}}}, func(f func()) { DeferCleanup(f) })
		Expect(err).NotTo(HaveOccurred())
		page = httptest.NewServer(h)
		DeferCleanup(page.Close)
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		set.Spec.Template.Spec.Source = "app"
		set.Spec.Placement = &v1alpha1.Placement{}
		Expect(env.Client.Create(ctx, set)).To(Succeed())
		set.Status.Rollout = v1alpha1.RolloutStatus{Wave: 2, Waves: 2, Clusters: 4, Ready: 1, Updating: 1, Unreachable: 1, Waiting: 1}
		set.Status.Conditions = []metav1.Condition{{Type: component.ConditionReady, Status: metav1.ConditionFalse, Reason: "Progressing",
			Message: "wave 2 of 2: 1 of 4 clusters Ready", LastTransitionTime: metav1.Now()}}
		Expect(env.Client.Status().Update(ctx, set)).To(Succeed())
		member(set, "east", 1, readyStatus())
		member(set, "west", 2, holdingStatus())
		unreachable := readyStatus()
		unreachable.State = component.StateProcessing
		unreachable.Conditions = []metav1.Condition{{Type: component.ConditionReady, Status: metav1.ConditionFalse,
			Reason: component.ReasonTargetUnreachable, Message: "dial tcp 127.0.0.1:1: connection refused", LastTransitionTime: metav1.Now()}}
		member(set, "north", 2, unreachable)
		createWithStatus(ns, "loner", readyStatus())
	})

	It("lists the set in the overview with its wave and clusters", func() {
		Eventually(func() string { return get(page.URL + "/") }).WithTimeout(10 * time.Second).
			Should(ContainSubstring(`data-set="fleet/edge" data-reason="Progressing"`))
		Expect(get(page.URL + "/")).To(ContainSubstring(`<td class="waves">1/4</td>`))
		Expect(get(page.URL+"/?namespace=shop")).NotTo(ContainSubstring(`data-set=`), "the namespace filter applies to sets")
		Expect(get(local.URL+"/")).NotTo(ContainSubstring(`data-set=`), "a page without set kinds shows none")
	})

	It("shows the waves in order, the cluster that holds wave 2, the unreachable one, and only the set's Components", func() {
		Eventually(func() string { return get(setURL()) }).WithTimeout(10 * time.Second).Should(ContainSubstring(`data-cluster="north"`))
		body := get(setURL())
		Expect(strings.Index(body, `data-wave="1" data-state="done"`)).To(BeNumerically("<", strings.Index(body, `data-wave="2" data-state="holding"`)))
		Expect(body).To(ContainSubstring(`data-cluster="west" data-state="Processing" data-holds="true"`))
		Expect(body).To(ContainSubstring(`data-cluster="north" data-state="Processing" data-holds="true" data-unreachable="true"`))
		Expect(body).To(MatchRegexp(`data-cluster="east" data-state="Ready">`))
		Expect(body).To(ContainSubstring(`href="/c/component.wavekit.dev/fleet/edge-west"`))
		Expect(body).NotTo(ContainSubstring("loner"))
		Expect(body).To(ContainSubstring("1 selected clusters have no component yet"))
		Expect(body).To(ContainSubstring("kubectl wavekit tree --set fleet/edge"))
	})

	It("shows a paused set's wave as paused", func() {
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(set), set)).To(Succeed())
		set.Spec.Paused = true
		Expect(env.Client.Update(ctx, set)).To(Succeed())
		Eventually(func() string { return get(setURL()) }).WithTimeout(10 * time.Second).Should(ContainSubstring(`data-wave="2" data-state="paused"`))
		Expect(get(setURL())).To(ContainSubstring(`id="paused"`))
		Expect(get(page.URL + "/")).To(ContainSubstring(`data-set="fleet/edge" data-reason="Progressing" data-paused="true"`))
	})

	It("answers 404 for a set that does not exist", func() {
		code, _ := request(http.MethodGet, page.URL+"/s/componentset.wavekit.dev/fleet/none")
		Expect(code).To(Equal(http.StatusNotFound))
	})
})

// A set with inputs: one member on the page's own cluster, two on a
// cluster, each with its input; the set's lines name them by member.
var _ = Describe("a ComponentSet with inputs on the page", func() {
	It("shows each member once with its input, and the members on this cluster as such", func() {
		h, err := startPage(ctx, env.Config, dashboard.Options{Log: zap.New(zap.WriteTo(GinkgoWriter)), Sets: []dashboard.SetKind{{
			Kind: v1alpha1.GroupVersion.WithKind("ComponentSet"), Member: componentKind,
			ClusterAnnotation: "wavekit.dev/set-cluster", WaveAnnotation: "wavekit.dev/set-wave",
			MemberAnnotation: "wavekit.dev/set-member", InputAnnotation: "wavekit.dev/set-input"}}}, func(f func()) { DeferCleanup(f) })
		Expect(err).NotTo(HaveOccurred())
		page := httptest.NewServer(h)
		DeferCleanup(page.Close)
		set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "previews"}}
		set.Spec.Template.Spec.Source = "app"
		set.Spec.Inputs = &v1alpha1.Inputs{InputSource: v1alpha1.InputSource{List: []v1alpha1.InputEntry{{JSON: apiextensionsv1.JSON{Raw: []byte(`{"id":"12"}`)}}}}}
		Expect(env.Client.Create(ctx, set)).To(Succeed())
		set.Status.Rollout = v1alpha1.RolloutStatus{Wave: 1, Waves: 1, Clusters: 3, Ready: 3}
		set.Status.Clusters = []string{"preview-12 (wave 1): Ready", "previews-eu-x (wave 1): Ready", "previews-us-x (wave 1): Ready"}
		Expect(env.Client.Status().Update(ctx, set)).To(Succeed())
		inputMember(set, "preview-12", "", "12")
		inputMember(set, "previews-eu-x", "eu", "x")
		inputMember(set, "previews-us-x", "us", "x")
		body := func() string { return get(page.URL + "/s/componentset.wavekit.dev/default/previews") }
		Eventually(body).WithTimeout(10 * time.Second).Should(ContainSubstring(`data-cluster="us" data-input="x"`))
		Expect(body()).To(And(ContainSubstring("<th>Input</th>"), ContainSubstring(`data-cluster="" data-input="12"`),
			ContainSubstring(`<td>12</td><td><small>this cluster</small>`), ContainSubstring(`data-cluster="eu" data-input="x"`)))
		Expect(body()).NotTo(ContainSubstring("data-pulled"), "every line has its member here")
		Expect(strings.Count(body(), `<tr class="cluster`)).To(Equal(3))
	})
})

// inputMember creates the Component name of set's input on cluster (""
// for the page's own), Ready.
func inputMember(set *v1alpha1.ComponentSet, name, cluster, input string) {
	GinkgoHelper()
	annotations := map[string]string{"wavekit.dev/set-member": name, "wavekit.dev/set-input": input, "wavekit.dev/set-wave": "1"}
	if cluster != "" {
		annotations["wavekit.dev/set-cluster"] = cluster
	}
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: set.Namespace, Name: name, Annotations: annotations,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, v1alpha1.GroupVersion.WithKind("ComponentSet"))}}}
	c.Spec.Source = "app"
	Expect(env.Client.Create(ctx, c)).To(Succeed())
	status := readyStatus()
	status.ObservedGeneration = c.Generation
	for i := range status.Conditions {
		status.Conditions[i].ObservedGeneration = c.Generation
	}
	c.Status = status
	Expect(env.Client.Status().Update(ctx, c)).To(Succeed())
}

// member creates the Component of cluster in wave that set controls, with
// status.
func member(set *v1alpha1.ComponentSet, cluster string, wave int, status component.Status) {
	GinkgoHelper()
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: set.Namespace, Name: set.Name + "-" + cluster,
		Annotations:     map[string]string{"wavekit.dev/set-cluster": cluster, "wavekit.dev/set-wave": strconv.Itoa(wave)},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, v1alpha1.GroupVersion.WithKind("ComponentSet"))}}}
	c.Spec.Source = "app"
	Expect(env.Client.Create(ctx, c)).To(Succeed())
	status.ObservedGeneration = c.Generation
	for i := range status.Conditions {
		status.Conditions[i].ObservedGeneration = c.Generation
	}
	c.Status = status
	Expect(env.Client.Status().Update(ctx, c)).To(Succeed())
}

// setsOnly lets every token list ComponentSets and Events, and nothing else.
type setsOnly struct{}

func (setsOnly) Authenticate(context.Context, string) (dashboard.User, error) {
	return dashboard.User{Username: "viewer"}, nil
}

func (setsOnly) Allowed(_ context.Context, _ dashboard.User, access dashboard.Access) (bool, error) {
	return access.Resource == "componentsets" || access.Resource == "events", nil
}

var _ = Describe("a ComponentSet to a viewer who may list sets and not Components", func() {
	It("shows the set's counts and conditions, and none of its clusters", func() {
		h, err := startPage(ctx, env.Config, dashboard.Options{Auth: setsOnly{}, Log: zap.New(zap.WriteTo(GinkgoWriter)), Sets: []dashboard.SetKind{{
			Kind: v1alpha1.GroupVersion.WithKind("ComponentSet"), Member: componentKind,
			ClusterAnnotation: "wavekit.dev/set-cluster", WaveAnnotation: "wavekit.dev/set-wave"}}}, func(f func()) { DeferCleanup(f) })
		Expect(err).NotTo(HaveOccurred())
		page := httptest.NewServer(h)
		DeferCleanup(page.Close)
		set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "counted"}}
		set.Spec.Template.Spec.Source = "app"
		set.Spec.Placement = &v1alpha1.Placement{}
		Expect(env.Client.Create(ctx, set)).To(Succeed())
		member(set, "east", 1, readyStatus())
		body := func() string {
			req, err := http.NewRequest(http.MethodGet, page.URL+"/s/componentset.wavekit.dev/default/counted", nil)
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Authorization", "Bearer any")
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			return string(data)
		}
		Eventually(body).WithTimeout(10 * time.Second).Should(ContainSubstring("You may not list the components of this namespace"))
		Expect(body()).NotTo(ContainSubstring(`data-cluster=`))
		Expect(body()).NotTo(ContainSubstring("counted-east"))
	})
})
