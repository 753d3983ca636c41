package localcloud_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/cli"
)

// vault's chart in shape: the StatefulSet vault (OnDelete, its claim data
// kept when it goes), the StatefulSet vault-cache (its claim cache deleted
// with it), the claim vault-audit of no class, and the LoadBalancer Service
// vault-ui.
var (
	vaultPods   = []string{"vault-0", "vault-cache-0"}
	vaultClaims = []string{"cache-vault-cache-0", "data-vault-0", "vault-audit"}
	keptClaims  = []string{"data-vault-0"}
)

var _ = Describe("vault's shape", func() {
	ctx := context.Background()

	It("installs through the operator to Ready, never before its pods, and leaves only the kept claims when deleted", func() {
		ns := newNamespace(ctx, "vault-operator")
		log := startWatchLog(ctx, ns)
		c := &v1alpha1.Component{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "vault"},
			Spec:       v1alpha1.ComponentSpec{Source: "vault"},
		}
		Expect(env.Client.Create(ctx, c)).To(Succeed())

		var readyAt uint64
		eventually(func() uint64 { readyAt = log.firstReady(); return readyAt }).ShouldNot(BeZero())
		expectInstalled(ctx, ns)
		expectCaughtUp(ctx, log, ns)
		Expect(log.readyBeforePods(readyAt, vaultPods...)).To(BeEmpty())

		expectUpgradeWaitsForDelete(ctx, c)

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() bool {
			return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c))
		}).Should(BeTrue())
		expectOnlyKept(ctx, ns)
	})

	It("installs through wavekit apply --wait with its pods ready and its address set, and leaves only the kept claims after wavekit delete", func() {
		ns := newNamespace(ctx, "vault-cli")
		code, stdout, stderr := runWavekit(ctx, "apply", "vault", chartDir("vault"), "-n", ns, "--wait", "--timeout", "2m")
		Expect(code).To(BeZero(), "stdout: %s\nstderr: %s", stdout, stderr)
		// --wait has waited for the StatefulSets: their pods are ready now.
		for _, name := range vaultPods {
			var pod corev1.Pod
			Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &pod)).To(Succeed())
			Expect(podState(&pod, "")).To(Equal("Running/Ready"), "pod %s", name)
		}
		expectInstalled(ctx, ns)

		code, stdout, stderr = runWavekit(ctx, "delete", "vault", "-n", ns, "--wait", "--timeout", "2m")
		Expect(code).To(BeZero(), "stdout: %s\nstderr: %s", stdout, stderr)
		expectOnlyKept(ctx, ns)
	})
})

// expectInstalled waits until vault's pods run, its claims are bound and
// its Service has an address.
func expectInstalled(ctx context.Context, ns string) {
	GinkgoHelper()
	eventually(func(g Gomega) {
		for _, name := range vaultPods {
			var pod corev1.Pod
			g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &pod)).To(Succeed())
			g.Expect(podState(&pod, "")).To(Equal("Running/Ready"), "pod %s", name)
		}
		g.Expect(claimPhases(ctx, ns)).To(Equal(map[string]corev1.PersistentVolumeClaimPhase{
			"cache-vault-cache-0": corev1.ClaimBound, "data-vault-0": corev1.ClaimBound, "vault-audit": corev1.ClaimBound,
		}))
	}).Should(Succeed())
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "vault-ui"}}
	Expect(expectAddress(ctx, svc)).To(MatchRegexp(`^127\.0\.\d+\.\d+$`))
}

// expectCaughtUp waits until the log's pod watch has delivered every pod
// of ns as it is now, so that no earlier pod event is still to come.
func expectCaughtUp(ctx context.Context, log *watchLog, ns string) {
	GinkgoHelper()
	var pods corev1.PodList
	Expect(env.Client.List(ctx, &pods, client.InNamespace(ns))).To(Succeed())
	for _, pod := range pods.Items {
		rv := mustParseRV(pod.ResourceVersion)
		eventually(func() bool { return log.hasPodAt(pod.Name, rv) }).Should(BeTrue(), "pod %s at %d", pod.Name, rv)
	}
}

// expectOnlyKept waits until the namespace's claims are exactly the kept
// ones, each still bound, and the volumes of the others are deleted.
func expectOnlyKept(ctx context.Context, ns string) {
	GinkgoHelper()
	eventually(func() map[string]corev1.PersistentVolumeClaimPhase { return claimPhases(ctx, ns) }).Should(Equal(
		map[string]corev1.PersistentVolumeClaimPhase{"data-vault-0": corev1.ClaimBound}))
	eventually(func() []string { return volumesOf(ctx, ns) }).Should(Equal(keptClaims))
}

// claimPhases returns the phase of each claim of ns.
func claimPhases(ctx context.Context, ns string) map[string]corev1.PersistentVolumeClaimPhase {
	GinkgoHelper()
	var claims corev1.PersistentVolumeClaimList
	Expect(env.Client.List(ctx, &claims, client.InNamespace(ns))).To(Succeed())
	phases := map[string]corev1.PersistentVolumeClaimPhase{}
	for _, claim := range claims.Items {
		phases[claim.Name] = claim.Status.Phase
	}
	return phases
}

// volumesOf returns the names of the claims of ns that volumes are bound
// to, sorted.
func volumesOf(ctx context.Context, ns string) []string {
	GinkgoHelper()
	var volumes corev1.PersistentVolumeList
	Expect(env.Client.List(ctx, &volumes)).To(Succeed())
	var claims []string
	for _, v := range volumes.Items {
		if v.Spec.ClaimRef != nil && v.Spec.ClaimRef.Namespace == ns {
			claims = append(claims, v.Spec.ClaimRef.Name)
		}
	}
	slices.Sort(claims)
	return claims
}

// runWavekit runs the wavekit command line in this process against the
// suite's cluster and returns its exit code, standard output and standard
// error.
func runWavekit(ctx context.Context, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Run(ctx, append([]string{"--kubeconfig", kubeconfig}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func jsonValues(values map[string]any) *apiextensionsv1.JSON {
	GinkgoHelper()
	raw, err := json.Marshal(values)
	Expect(err).NotTo(HaveOccurred())
	return &apiextensionsv1.JSON{Raw: raw}
}
