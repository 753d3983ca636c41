package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/agent/register"
	"github.com/wavekit-dev/wavekit/internal/cli"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/pkg/dashboard"
)

// The views of a set over pulled clusters: a set of its own over the
// suite's clusters (p1 to p3 pulled, c4 and c5 pushed), which it selects
// by a label of its own (the other specs relabel them), and p9, a pulled
// cluster registered without an agent, which is Unknown from the start —
// as an agent that stopped renewing its Lease.
var _ = Describe("the views of a set over pulled clusters", Ordered, func() {
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "views"}}
	var page *httptest.Server

	BeforeAll(func() {
		_, err := register.Register(ctx, hub.Client, register.Cluster{Namespace: ns, Name: "p9", Labels: map[string]string{viewsLabel: "yes"}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(hub.Client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p9"}}))).To(Succeed())
		})
		for _, cluster := range clusterNames {
			labelForViews(cluster, "yes")
			DeferCleanup(func() { labelForViews(cluster, nil) })
		}
		raw, err := json.Marshal(map[string]any{"greeting": "views"})
		Expect(err).NotTo(HaveOccurred())
		set.Spec = v1alpha1.ComponentSetSpec{
			Template:  v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "site", Values: &apiextensionsv1.JSON{Raw: raw}}},
			Placement: &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{viewsLabel: "yes"}}},
			// Orphan: deleting the set deletes p9's ComponentWork at once,
			// without waiting for an agent that never comes.
			RemovalPolicy: v1alpha1.RemovalOrphan,
		}
		Expect(hub.Client.Create(ctx, set)).To(Succeed())
		DeferCleanup(func() {
			Expect(hub.Client.Delete(ctx, set)).To(Succeed())
			Eventually(func() bool {
				return apierrors.IsNotFound(hub.Client.Get(ctx, client.ObjectKeyFromObject(set), &v1alpha1.ComponentSet{}))
			}).WithTimeout(timeout).Should(BeTrue(), "the set is gone")
			var works v1alpha1.ComponentWorkList
			Expect(hub.Client.List(ctx, &works, client.MatchingLabels{"wavekit.dev/set-name": set.Name})).To(Succeed())
			Expect(works.Items).To(BeEmpty())
			// The set released its Components: delete them, and their objects.
			for i, cluster := range clusterNames {
				where := hub.Client // a pushed cluster's Component is on the hub
				if i < pulledClusters {
					where = members[i].Client
				}
				released := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "views-" + cluster}}
				Expect(client.IgnoreNotFound(where.Delete(ctx, released))).To(Succeed())
			}
		})
		page = startDashboard()
		DeferCleanup(page.Close)

		Eventually(func() v1alpha1.RolloutStatus {
			got := &v1alpha1.ComponentSet{}
			Expect(hub.Client.Get(ctx, client.ObjectKeyFromObject(set), got)).To(Succeed())
			return got.Status.Rollout
		}).WithTimeout(timeout).Should(Equal(v1alpha1.RolloutStatus{Wave: 1, Waves: 1, Clusters: 6, Ready: 5, Unreachable: 1}))
	})

	It("wavekit get --sets counts the pulled clusters, Ready and unreachable", func() {
		out := runCLI("get", "--sets", "-n", ns, "views")
		Expect(out).To(MatchRegexp(`views\s+False\s+1/1\s+5/6 Ready\s+.*1 unreachable`))
	})

	It("wavekit tree --set shows each pulled cluster's state, the silent one Unknown", func() {
		out := runCLI("tree", "--set", ns+"/views")
		for _, pushed := range clusterNames[pulledClusters:] {
			Expect(out).To(MatchRegexp(`1\s+`+pushed+`\s+views-`+pushed+`\s+True\s+Ready`), "the pushed cluster %s's Component", pushed)
		}
		for _, pulled := range clusterNames[:pulledClusters] {
			Expect(out).To(MatchRegexp(`1\s+`+pulled+`\s+\(on the cluster: pulled\)\s+True\s+Ready`), "pulled cluster %s", pulled)
		}
		Expect(out).To(MatchRegexp(`1\s+p9\s+\(on the cluster: pulled\)\s+Unknown\s+Unreachable\s+the cluster's agent has not connected to the hub yet`))
	})

	It("the dashboard shows the pulled clusters in their wave, the silent one unreachable and holding it", func() {
		url := page.URL + "/s/componentset.wavekit.dev/" + ns + "/views"
		Eventually(func() string { return fetchPage(url) }).WithTimeout(20 * time.Second).Should(ContainSubstring(`data-cluster="p9"`))
		body := fetchPage(url)
		for _, pulled := range clusterNames[:pulledClusters] {
			Expect(body).To(ContainSubstring(`data-cluster="` + pulled + `" data-state="Ready" data-pulled="true">`))
		}
		Expect(body).To(ContainSubstring(`data-cluster="p9" data-state="Unreachable" data-pulled="true" data-holds="true" data-unreachable="true"`))
		Expect(body).To(ContainSubstring(`href="/c/component.wavekit.dev/` + ns + `/views-c4"`))
		Expect(body).NotTo(ContainSubstring("have no component yet"), "the pulled clusters are not taken for clusters whose wave has not come")
	})
})

// viewsLabel selects the clusters of the views' set.
const viewsLabel = "views.test/selected"

// labelForViews sets the label viewsLabel of cluster's Secret to value,
// or removes it (nil).
func labelForViews(cluster string, value any) {
	GinkgoHelper()
	raw, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{viewsLabel: value}}})
	Expect(err).NotTo(HaveOccurred())
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cluster}}
	Expect(hub.Client.Patch(ctx, secret, client.RawPatch(types.MergePatchType, raw))).To(Succeed())
}

// runCLI runs the CLI as the hub's administrator and returns its output.
func runCLI(args ...string) string {
	GinkgoHelper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(ctx, append([]string{"--kubeconfig", admin}, args...), &stdout, &stderr)
	Expect(code).To(BeZero(), stderr.String())
	return stdout.String()
}

// startDashboard serves the status page of the hub, as the operator's
// --web-bind-address does, without a login (as wavekit dashboard).
func startDashboard() *httptest.Server {
	GinkgoHelper()
	c, err := cache.New(hub.Config, cache.Options{Scheme: hub.Scheme})
	Expect(err).NotTo(HaveOccurred())
	componentKind := v1alpha1.GroupVersion.WithKind("Component")
	cluster, wave := fleet.MemberAnnotations("wavekit.dev")
	h, err := dashboard.New(ctx, c, hub.Client.RESTMapper(), dashboard.Options{Scheme: hub.Scheme, Log: zap.New(zap.WriteTo(GinkgoWriter)),
		Kinds: []schema.GroupVersionKind{componentKind},
		Sets: []dashboard.SetKind{{Kind: v1alpha1.GroupVersion.WithKind("ComponentSet"), Member: componentKind,
			ClusterAnnotation: cluster, WaveAnnotation: wave}}})
	Expect(err).NotTo(HaveOccurred())
	cacheCtx, cancel := context.WithCancel(ctx)
	DeferCleanup(cancel)
	go func() { _ = c.Start(cacheCtx) }()
	Expect(c.WaitForCacheSync(ctx)).To(BeTrue())
	return httptest.NewServer(h)
}

func fetchPage(url string) string {
	GinkgoHelper()
	resp, err := http.Get(url)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
	return string(body)
}
