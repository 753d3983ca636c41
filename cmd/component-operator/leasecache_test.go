package main_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/apirequest"
	testenv "github.com/wavekit-dev/wavekit/pkg/testenv"
)

var _ = Describe("the hub's cache of Leases and Secrets", func() {
	It("reads the pulled clusters' agents' Leases and the fleet's Secrets only, none of the hub's other Leases and Secrets", func() {
		ctx := context.Background()
		env := &testenv.Environment{APIServerOnly: true}
		env.CRDDirectoryPaths = []string{filepath.Join(testcluster.ModuleRoot(), "config", "crd", "bases"),
			filepath.Join(testcluster.ModuleRoot(), "test", "fleet", "testdata", "crds")} // Cluster API's Cluster
		env.ErrorIfCRDPathMissing = true
		cfg, err := env.Start()
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(env.Stop)
		scheme := k8sruntime.NewScheme()
		Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
		Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		agentNS := fleet.WorkNamespace("fleet", "p1")
		for _, name := range []string{"wavekit-system", "apps", agentNS} {
			Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
		}
		for _, key := range []client.ObjectKey{{Namespace: agentNS, Name: fleet.AgentLease}, {Namespace: "apps", Name: "an-election"}} {
			Expect(c.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})).To(Succeed())
		}
		// One registered cluster, and Secrets of no cluster: a shard's kept
		// renders and applied Secrets are such, by the thousand.
		// One registered cluster and one of Cluster API, which a set
		// selects (the set keeps a copy of each kubeconfig), and Secrets of
		// no cluster: a shard's kept renders and applied Secrets are such,
		// by the thousand.
		kubeconfig := map[string][]byte{"value": []byte("apiVersion: v1\nkind: Config\n")}
		Expect(c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "east",
			Labels: map[string]string{"wavekit.dev/cluster": "true", "fleet": "edge"}}, Data: kubeconfig})).To(Succeed())
		north := &unstructured.Unstructured{}
		north.SetAPIVersion("cluster.x-k8s.io/v1beta1")
		north.SetKind("Cluster")
		north.SetNamespace("apps")
		north.SetName("north")
		north.SetLabels(map[string]string{"fleet": "edge"})
		Expect(c.Create(ctx, north)).To(Succeed())
		Expect(c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "north-kubeconfig",
			Labels: map[string]string{"cluster.x-k8s.io/cluster-name": "north"}}, Data: kubeconfig})).To(Succeed())
		Expect(c.Create(ctx, &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "edge"},
			Spec: v1alpha1.ComponentSetSpec{
				Template:  v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "web"}},
				Placement: &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"fleet": "edge"}}},
			}})).To(Succeed())
		for i := range 5 {
			Expect(c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: fmt.Sprintf("other-%d", i)}})).To(Succeed())
		}
		Expect(operatortest.ApplyRBAC(ctx, c, testcluster.ModuleRoot(), "wavekit", "wavekit-system", map[string]any{})).To(Succeed())
		identity, err := operatortest.ServiceAccountConfig(ctx, c, cfg, "wavekit-system", "wavekit-component-operator")
		Expect(err).NotTo(HaveOccurred())

		// The queries of the operator's lists and watches of Leases.
		var mu sync.Mutex
		var reads []url.Values
		proxy, err := apicount.StartProxy(cfg, func(req *http.Request) {
			if verb := apirequest.Verb(req); apirequest.Resource(req.URL.Path) == "leases" && (verb == "list" || verb == "watch") {
				mu.Lock()
				reads = append(reads, req.URL.Query())
				mu.Unlock()
			}
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(proxy.Close)
		hubKubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(proxy.Config(identity.BearerToken), hubKubeconfig)).To(Succeed())
		metrics, err := operatortest.FreeLocalAddress()
		Expect(err).NotTo(HaveOccurred())
		session := start(hubKubeconfig, "--source", "web=../../internal/cli/testdata/web", "--metrics-bind-address", metrics, "--metrics-secure=false")

		Eventually(func() int { return proxy.Counter.Count("watch", "leases") }).WithTimeout(time.Minute).Should(BeNumerically(">", 0),
			"the ComponentSet controller watches the agents' Leases")
		var all coordinationv1.LeaseList
		Expect(c.List(ctx, &all)).To(Succeed())
		Expect(len(all.Items)).To(BeNumerically(">", 1), "the hub has Leases besides the agent's (the API server's own, an-election)")
		Eventually(cached).WithArguments(metrics, "Lease.coordination.k8s.io").WithTimeout(time.Minute).Should(Equal(1), "the operator's cache holds the agent's Lease only")
		copies := func() int {
			var list corev1.SecretList
			Expect(c.List(ctx, &list, client.InNamespace("apps"))).To(Succeed())
			n := 0
			for _, s := range list.Items {
				if strings.HasSuffix(s.Name, ".set.kubeconfig") {
					n++
				}
			}
			return n
		}
		Eventually(copies).WithTimeout(time.Minute).Should(Equal(2), "the set keeps a copy of each cluster's kubeconfig")
		Eventually(cached).WithArguments(metrics, "Secret").WithTimeout(time.Minute).Should(Equal(4),
			"the operator's caches hold the two clusters' Secrets and the set's two copies only, not the other five")
		Consistently(session).WithTimeout(2 * time.Second).ShouldNot(gexec.Exit())
		mu.Lock()
		defer mu.Unlock()
		Expect(reads).NotTo(BeEmpty())
		for _, query := range reads {
			Expect(query.Get("fieldSelector")).To(Equal("metadata.name="+fleet.AgentLease), "every list and watch of Leases: %v", query)
		}
	})
})

// cached is the operator's wavekit_cached_objects of resource (summed
// over its caches), read from its metrics at addr; -1 when they cannot be
// read.
func cached(addr, resource string) int {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return -1
	}
	n := 0
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "wavekit_cached_objects{") && strings.Contains(line, `resource="`+resource+`"`) {
			v, _ := strconv.Atoi(line[strings.LastIndex(line, " ")+1:])
			n += v
		}
	}
	return n
}
