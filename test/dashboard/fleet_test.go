package dashboard_test

import (
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// A ComponentSet over the two bare API servers of the suite and one address
// that refuses every connection: east in wave canary, west (held by its ConfigMap) and
// gone in wave main.
var _ = Describe("a ComponentSet on the status page", Ordered, func() {
	const fleetNS = "fleet"
	// setPage is the set's page, once the suite knows base.
	var fleetViewer, noSets, setPage string

	BeforeAll(func() {
		setPage = base + "/s/componentset.wavekit.dev/" + fleetNS + "/edge"
		fleetViewer = viewerTokenOf([]string{"components", "componentsets"}, systemNS, "fleet-viewer", "")
		noSets = viewerToken(systemNS, "no-sets-viewer", "")
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fleetNS}})).To(Succeed())
		clusterSecret(members[0], "", "east", map[string]string{"wave": "canary"})
		clusterSecret(members[1], "", "west", map[string]string{"wave": "main", "hold": "true"})
		clusterSecret(members[1], "127.0.0.1:1", "gone", map[string]string{"wave": "main"})
		set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: fleetNS, Name: "edge"}, Spec: v1alpha1.ComponentSetSpec{
			Template: v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "site", HealthChecks: []manifests.HealthCheck{{
				APIVersion: "v1", Kind: "ConfigMap",
				Current: "!has(self.metadata.annotations) || !('test.wavekit.dev/hold' in self.metadata.annotations)"}}}},
			Placement: &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"fleet": "edge"}}},
			Rollout:   v1alpha1.Rollout{WaveLabel: "wave", WaveOrder: []string{"canary", "main"}},
		}}
		Expect(env.Client.Create(ctx, set)).To(Succeed())
	})

	It("shows its waves in order, the cluster that holds wave 2, the unreachable one, and pausing it, live", func() {
		tab := newBrowser()
		login(tab, fleetViewer)
		Eventually(func() (string, error) {
			return evaluate[string](tab, `(document.querySelector('tr[data-set="fleet/edge"]') || {dataset: {}}).dataset.reason || ""`)
		}).WithTimeout(2*time.Minute).WithPolling(200*time.Millisecond).Should(Equal("Progressing"), "the overview lists the set")
		navigate(tab, setPage)
		waves := `[...document.querySelectorAll("section.wave")].map(s => s.dataset.wave + ":" + s.dataset.state).join(",")`
		clusters := `[...document.querySelectorAll("tr.cluster")].map(r => r.dataset.cluster + ":" + r.dataset.state +
			(r.dataset.holds ? ":holds" : "") + (r.dataset.unreachable ? ":unreachable" : "")).join(",")`
		Eventually(func() (string, error) { return evaluate[string](tab, clusters) }).WithTimeout(2*time.Minute).WithPolling(200*time.Millisecond).
			Should(MatchRegexp(`^east:Ready,gone:\w+:holds:unreachable,west:Processing:holds$`), "each cluster's state, live")
		Expect(evaluate[string](tab, waves)).To(Equal("1:done,2:holding"))
		screenshot(tab, "dashboard-componentset.png")

		_, err := evaluate[bool](tab, `window.notReloaded = true`)
		Expect(err).NotTo(HaveOccurred())
		set := &v1alpha1.ComponentSet{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: fleetNS, Name: "edge"}, set)).To(Succeed())
		set.Spec.Paused = true
		Expect(env.Client.Update(ctx, set)).To(Succeed())
		Eventually(func() (string, error) { return evaluate[string](tab, waves) }).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).
			Should(Equal("1:done,2:paused"))
		Expect(evaluate[bool](tab, `document.getElementById("paused") !== null && window.notReloaded === true`)).To(BeTrue())
	})

	It("shows nothing of the set to a viewer who may not get ComponentSets", func() {
		body := page(base+"/", noSets)
		Expect(body).To(ContainSubstring(`data-component="fleet/edge-east"`), "the viewer sees the set's Components")
		Expect(body).NotTo(ContainSubstring(`data-set=`))
		code, _, body, err := fetch(http.MethodGet, setPage, noSets)
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(http.StatusNotFound))
		Expect(body).NotTo(ContainSubstring("canary"))
		Expect(page(setPage, fleetViewer)).To(ContainSubstring(`data-cluster="east"`))
	})
})

// clusterSecret registers member as a cluster of the fleet namespace, at
// address (host:port) instead of its own when address is set.
func clusterSecret(member *testcluster.Env, address, name string, labels map[string]string) {
	GinkgoHelper()
	labels[operatorName+"/cluster"], labels["fleet"] = "true", "edge"
	secret, err := member.KubeconfigSecret("fleet", name, labels)
	Expect(err).NotTo(HaveOccurred())
	if address != "" {
		cfg := rest.CopyConfig(member.Config)
		cfg.Host = fmt.Sprintf("https://%s", address)
		secret.Data["value"], err = testcluster.KubeconfigBytes(cfg)
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(env.Client.Create(ctx, secret)).To(Succeed())
}
