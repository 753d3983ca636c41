package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// The operator binary, run as the chart's ServiceAccount with the most
// verbose logs, installs Secrets with known values, next to failures of
// every kind; none of the values, plain or base64, may show up in its logs,
// the Events, the Components' status or their error messages.
var _ = Describe("secret values", Ordered, func() {
	const namespace = "vault"
	var (
		env      *testcluster.Env
		operator *gexec.Session
		ctx      = context.Background()
		values   []string // every secret value of the spec
	)
	// secretValue returns a new known value of 12 characters (no base64
	// padding, so its base64 is found inside longer base64 too).
	secretValue := func(use string) string {
		v := fmt.Sprintf("s3cret-%s-xxxxx", use)[:12]
		values = append(values, v)
		return v
	}

	BeforeAll(func() {
		env = startControlPlane()
		binary := buildOperatorBinary()
		for _, ns := range []string{"wavekit-system", namespace} {
			Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		}
		// What the vault source deploys; the chart grants what the operator itself needs.
		applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{"rbac": map[string]any{
			"extraRules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets", "configmaps"},
				"verbs": []any{"get", "list", "watch", "create", "update", "patch", "delete"}}},
		}})
		operator = startOperatorBinary(binary, serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator"),
			"--source", "vault="+filepath.Join(testcluster.ModuleRoot(), "test", "e2e", "testdata", "vault"), "--zap-log-level=10")
	})

	component := func(name string, values map[string]any) *v1alpha1.Component {
		GinkgoHelper()
		raw, err := json.Marshal(values)
		Expect(err).NotTo(HaveOccurred())
		c := &v1alpha1.Component{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec:       v1alpha1.ComponentSpec{Source: "vault", Values: &apiextensionsv1.JSON{Raw: raw}},
		}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		return c
	}
	readyMessage := func(c *v1alpha1.Component) func() string {
		return func() string {
			var got v1alpha1.Component
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got)).To(Succeed())
			cond := got.Status.ReadyCondition()
			if cond == nil {
				return "none"
			}
			return string(cond.Status) + ": " + cond.Message
		}
	}
	secretData := func(name string) func() string {
		return func() string {
			var s corev1.Secret
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &s); err != nil {
				return err.Error()
			}
			return string(s.Data["password"])
		}
	}

	It("never appear in logs, events, status or error messages, also when things fail", func() {
		foreign := secretValue("frgn")
		Expect(env.Client.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "conflict-credentials"},
			StringData: map[string]string{"password": foreign},
		})).To(Succeed())

		okValue := secretValue("ok")
		ok := component("ok", map[string]any{"password": okValue})
		Expect(env.Client.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "unreachable-kubeconfig"},
			StringData: map[string]string{"value": unreachableKubeconfig(secretValue("kcfg"))},
		})).To(Succeed())
		remote := component("remote", map[string]any{"password": secretValue("rmt")})
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(remote), remote)).To(Succeed())
		remote.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: "unreachable-kubeconfig"}
		Expect(env.Client.Update(ctx, remote)).To(Succeed())
		failing := map[*v1alpha1.Component]string{
			component("badkey", map[string]any{"password": secretValue("bkey"), "badKey": true}):             "bad key!",
			component("neighbour", map[string]any{"password": secretValue("nbr"), "invalidNeighbour": true}): "neighbour-Not_A_Name",
			component("conflict", map[string]any{"password": secretValue("cnf"), "adoption": "never"}):       "conflict-credentials",
			component("kindless", map[string]any{"password": secretValue("kind"), "dropKind": true}):         "secret.yaml",
			remote: "127.0.0.1:1",
		}

		By("applying a Secret, correcting an out-of-band change of it, and updating it")
		Eventually(readyMessage(ok)).WithTimeout(60 * time.Second).Should(HavePrefix("True"))
		var s corev1.Secret
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "ok-credentials"}, &s)).To(Succeed())
		s.Data["password"] = []byte(secretValue("tamp"))
		Expect(env.Client.Update(ctx, &s)).To(Succeed())
		Eventually(secretData("ok-credentials")).WithTimeout(30 * time.Second).Should(Equal(okValue))
		updated := secretValue("upd")
		edit(ctx, env, ok, func() { ok.Spec.Values = &apiextensionsv1.JSON{Raw: []byte(`{"password":"` + updated + `"}`)} })
		Eventually(secretData("ok-credentials")).WithTimeout(30 * time.Second).Should(Equal(updated))

		By("failing next to a Secret: an invalid key, an invalid neighbour, a conflict, a document without kind, an unreachable cluster whose kubeconfig holds a token")
		for c, names := range failing {
			Eventually(readyMessage(c)).WithTimeout(60*time.Second).Should(
				And(HavePrefix("False"), ContainSubstring(names)), "component %s", c.Name)
		}
		Expect(secretData("conflict-credentials")()).To(Equal(foreign), "the conflict leaves the foreign Secret alone")

		statuses := componentStatuses(ctx, env, namespace) // before they are gone

		By("deleting them all but the one whose cluster is unreachable (that waits for its cluster)")
		delete(failing, remote)
		for _, c := range append([]*v1alpha1.Component{ok}, slices.Collect(maps.Keys(failing))...) {
			Expect(env.Client.Delete(ctx, c)).To(Succeed())
			Eventually(func() string { return readyReason(ctx, env, c) }).WithTimeout(60*time.Second).Should(Equal("gone"), "component %s", c.Name)
		}
		Expect(secretData("ok-credentials")()).To(ContainSubstring("not found"))

		By("finding none of the values, plain or base64")
		haystacks := map[string]string{
			"the operator's log": string(operator.Out.Contents()) + string(operator.Err.Contents()),
			"the Events":         eventTexts(ctx, env),
			"the status":         statuses,
		}
		Expect(haystacks["the operator's log"]).To(ContainSubstring("Reconcil"), "the log is verbose enough to leak")
		Expect(statuses).To(ContainSubstring("bad key!"), "the status holds the error messages")
		for where, text := range haystacks {
			for _, v := range values {
				Expect(text).NotTo(ContainSubstring(v), "%s shows a secret value", where)
				Expect(text).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte(v))), "%s shows a secret value in base64", where)
			}
		}
	})
})

// eventTexts returns every Event of the cluster as JSON (reason, message,
// note, everything), one per line.
func eventTexts(ctx context.Context, env *testcluster.Env) string {
	GinkgoHelper()
	var events corev1.EventList
	Expect(env.Client.List(ctx, &events)).To(Succeed())
	Expect(events.Items).NotTo(BeEmpty())
	var lines []string
	for _, e := range events.Items {
		data, err := json.Marshal(e)
		Expect(err).NotTo(HaveOccurred())
		lines = append(lines, string(data))
	}
	return strings.Join(lines, "\n")
}

// componentStatuses returns the status of every Component of namespace as
// JSON, conditions and their messages included.
func componentStatuses(ctx context.Context, env *testcluster.Env, namespace string) string {
	GinkgoHelper()
	var components v1alpha1.ComponentList
	Expect(env.Client.List(ctx, &components, client.InNamespace(namespace))).To(Succeed())
	var lines []string
	for _, c := range components.Items {
		data, err := json.Marshal(c.Status)
		Expect(err).NotTo(HaveOccurred())
		lines = append(lines, c.Name+": "+string(data))
	}
	return strings.Join(lines, "\n")
}

// unreachableKubeconfig is a kubeconfig for a cluster nobody serves, whose
// user authenticates with token.
func unreachableKubeconfig(token string) string {
	return `apiVersion: v1
kind: Config
clusters: [{name: nowhere, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: deployer, user: {token: "` + token + `"}}]
contexts: [{name: nowhere, context: {cluster: nowhere, user: deployer}}]
current-context: nowhere
`
}
