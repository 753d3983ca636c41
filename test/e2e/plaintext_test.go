package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/invariants"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/sopstest"
	"github.com/wavekit-dev/wavekit/internal/testing/spansink"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// A decrypted secret lives only where the user put it. The operator binary,
// under its chart's RBAC with the lockdown, watching one namespace (so that
// the key of kept renders is reachable only through the chart's Role for
// it; a tenant's ServiceAccount applies the namespace's objects), installs a
// kustomization with a SOPS-encrypted Secret and a chart whose Secrets
// hold a randAlphaNum password, a genCA key pair and a token from a
// valuesFrom Secret; the CLI installs the same chart as a release. Through
// install, drift repair, a change of values, a restart and the loss of the
// key, every value those Secrets ever held is looked for everywhere else:
// every other Secret and ConfigMap of the cluster (their data as it is,
// base64-decoded and gunzipped), the statuses, the Events, the operator's
// log, the spans, the status page, the alerts, and the output of
// `wavekit diff component` and `wavekit diff`.
var _ = Describe("a decrypted secret lives only where the user put it", Ordered, func() {
	const (
		ns     = "kept"
		cliNS  = "kept-cli"
		keyRef = "wavekit-system/wavekit-component-operator-render-key"
	)
	var (
		env        *testcluster.Env
		ctx        = context.Background()
		operator   *gexec.Session
		logs       strings.Builder // the log of every operator process so far
		sink       *spansink.Sink
		alerts     = map[string]func() []string{}
		args       []string
		webBase    string
		viewer     string
		kubeconfig string
		chartDir   = testdataSource("kept")
		sealedDir  string
		app        *v1alpha1.Component
		sealed     *v1alpha1.Component
		values     = map[string][]byte{} // every value a target Secret held, by "<namespace>/<name>/<key>#<n>"
		targets    = map[string]bool{"kept/app-generated": true, "kept/app-ca": true, "kept/app-token": true, "kept/db": true,
			cliNS + "/rel-generated": true, cliNS + "/rel-ca": true, cliNS + "/rel-token": true}
		// inputs are the Secrets the user wrote: they hold what they hold.
		inputs  = map[string]bool{"kept/app-values": true, "kept/sops-keys": true}
		outputs = map[string]string{} // what the CLI printed, by command
	)

	// start runs the operator binary until stop, which the last spec
	// leaves to AfterAll (startOperatorBinary would stop it at the end of
	// the spec that starts it).
	start := func() {
		GinkgoHelper()
		var err error
		operator, err = operatortest.Operator{Binary: buildOperatorBinary(), Dir: GinkgoT().TempDir(), Out: GinkgoWriter,
			Config: serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator"),
			Args:   append([]string{"--operator-name", "e2e.wavekit.dev"}, args...)}.Start()
		Expect(err).NotTo(HaveOccurred())
	}
	stop := func() {
		GinkgoHelper()
		operator.Terminate().Wait(10 * time.Second)
		logs.Write(operator.Out.Contents())
		logs.Write(operator.Err.Contents())
	}
	ready := func(c *v1alpha1.Component) {
		GinkgoHelper()
		Eventually(func(g Gomega) {
			var got v1alpha1.Component
			g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), &got)).To(Succeed())
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(statusOf(ctx, env, c)).To(HavePrefix("True/Ready"))
		}).WithTimeout(readinessTimeout).Should(Succeed())
	}
	secretData := func(namespace, name string) map[string][]byte {
		GinkgoHelper()
		var s corev1.Secret
		Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, &s)).To(Succeed())
		return s.Data
	}
	// collect records what the target Secrets hold now.
	collect := func() {
		GinkgoHelper()
		for target := range targets {
			namespace, name, _ := strings.Cut(target, "/")
			for k, v := range secretData(namespace, name) {
				values[fmt.Sprintf("%s/%s#%d", target, k, len(values))] = v
			}
		}
	}
	// renders counts the spans of renders the operator made, and of kept
	// renders it applied, from the from-th span received on.
	renders := func(from int) (made, kept int) {
		for _, s := range sink.Spans()[from:] {
			if s.Name == "render" {
				if s.Attributes["wavekit.render.kept"] == "true" {
					kept++
				} else {
					made++
				}
			}
		}
		return made, kept
	}
	// rendered waits until the spans of n renders in all have come, and
	// returns how many spans have come.
	rendered := func(n int) int {
		GinkgoHelper()
		Eventually(func() int { made, _ := renders(0); return made }).WithTimeout(readinessTimeout).Should(Equal(n))
		return len(sink.Spans())
	}
	versions := func() map[string]string {
		GinkgoHelper()
		out := map[string]string{}
		for target := range targets {
			namespace, name, _ := strings.Cut(target, "/")
			var s corev1.Secret
			Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, &s)).To(Succeed())
			out[target] = s.ResourceVersion
		}
		return out
	}

	AfterAll(func() {
		if operator != nil {
			operator.Terminate().Wait(10 * time.Second)
		}
	})

	BeforeAll(func() {
		env = startControlPlane()
		for _, name := range []string{"wavekit-system", cliNS} {
			createNamespace(ctx, env, name)
		}
		createDeployerTenant(ctx, env, ns)
		applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{
			"watchNamespaces": []any{ns}, "defaultServiceAccount": "deployer", "web": map[string]any{"enabled": true}})
		identity, recipient, err := sopstest.NewKey()
		Expect(err).NotTo(HaveOccurred())
		sealedDir = sealedSource(recipient, fmt.Sprintf("sops-marker-%d", time.Now().UnixNano()%1e9))
		hook := newReceiver()
		alerts["the alerts"] = hook.Bodies
		for _, o := range []client.Object{
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sops-keys"}, StringData: map[string]string{"team.agekey": identity}},
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app-values"}, StringData: map[string]string{"values.yaml": "token: token-marker-first\n"}},
			&v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hook"}, Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderGeneric, Address: hook.URL + "/alerts"}},
			&v1alpha1.Alert{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "all"}, Spec: v1alpha1.AlertSpec{
				ProviderRef: v1alpha1.LocalProviderReference{Name: "hook"}, EventSources: []v1alpha1.EventSource{{Kind: "Component", Name: "*"}}}},
			&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "viewer"}, Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"wavekit.dev"}, Resources: []string{"components"}, Verbs: []string{"get", "list", "watch"}},
				{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"get", "list", "watch"}}}},
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "viewer"},
				RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "viewer"},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: "viewer"}}},
		} {
			Expect(env.Client.Create(ctx, o)).To(Succeed())
		}
		viewer = serviceAccountConfig(ctx, env, ns, "viewer").BearerToken
		sink = spansink.Start()
		DeferCleanup(sink.Close)
		web := freeLocalAddress()
		webBase = "http://" + web
		args = []string{"--source", "kept=" + chartDir, "--source", "sealed=" + sealedDir, "--watch-namespaces", ns,
			"--default-service-account", "deployer", "--render-key-secret", keyRef, "--otlp-endpoint", sink.URL(), "--web-bind-address", web, "--zap-log-level=10"}
		start()
		kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(testcluster.WriteKubeconfig(env.Config, kubeconfig)).To(Succeed())

		app = &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"}, Spec: v1alpha1.ComponentSpec{
			Source: "kept", Values: jsonValues(map[string]any{"greeting": "hello"}),
			ValuesFrom: []v1alpha1.ValuesReference{{Kind: "Secret", Name: "app-values"}},
			Intervals:  v1alpha1.Intervals{Requeue: &metav1.Duration{Duration: 2 * time.Second}}}}
		sealed = &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sealed"}, Spec: v1alpha1.ComponentSpec{
			Source: "sealed", Decryption: &v1alpha1.Decryption{Provider: "sops", SecretRef: v1alpha1.LocalObjectReference{Name: "sops-keys"}},
			Intervals: v1alpha1.Intervals{Requeue: &metav1.Duration{Duration: 2 * time.Second}}}}
		Expect(env.Client.Create(ctx, app)).To(Succeed())
		Expect(env.Client.Create(ctx, sealed)).To(Succeed())
		ready(app)
		ready(sealed)

		code, out, errOut := runWavekit(ctx, kubeconfig, "apply", "rel", chartDir, "-n", cliNS, "--set", "token=cli-token-marker", "--wait", "--timeout", "1m")
		Expect(code).To(BeZero(), errOut)
		outputs["wavekit apply"] = out + errOut
		collect()
		rendered(2)
	})

	It("puts a drifted Secret back to the value it applied, without a render", func() {
		before := secretData(ns, "app-generated")["password"]
		from := rendered(2)
		var s corev1.Secret
		Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "app-generated"}, &s)).To(Succeed())
		s.Data["password"] = []byte("edited by hand")
		Expect(env.Client.Update(ctx, &s)).To(Succeed())
		Eventually(func() string { return string(secretData(ns, "app-generated")["password"]) }).WithTimeout(readinessTimeout).Should(Equal(string(before)))
		Eventually(func() int { _, kept := renders(from); return kept }).WithTimeout(readinessTimeout).Should(BeNumerically(">=", 1))
		made, _ := renders(0)
		Expect(made).To(Equal(2), "the repair rendered")
	})

	It("renders each change of values once (a valuesFrom Secret's, the spec's), with a new password and key pair", func() {
		before := secretData(ns, "app-generated")["password"]
		var valuesSecret corev1.Secret
		Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "app-values"}, &valuesSecret)).To(Succeed())
		valuesSecret.Data = map[string][]byte{"values.yaml": []byte("token: token-marker-second\n")}
		Expect(env.Client.Update(ctx, &valuesSecret)).To(Succeed())
		got := v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name}}
		edit(ctx, env, &got, func() { got.Spec.Values = jsonValues(map[string]any{"greeting": "bonjour"}) })
		Eventually(func() string { return string(secretData(ns, "app-token")["token"]) }).WithTimeout(readinessTimeout).Should(Equal("token-marker-second"))
		ready(app)
		Expect(secretData(ns, "app-generated")["password"]).NotTo(Equal(before))
		rendered(4)

		code, out, errOut := runWavekit(ctx, kubeconfig, "apply", "rel", chartDir, "-n", cliNS, "--set", "token=cli-token-second", "--wait", "--timeout", "1m")
		Expect(code).To(BeZero(), errOut)
		outputs["wavekit apply again"] = out + errOut
		collect()
	})

	It("renders nothing after a restart with the key, and writes nothing", func() {
		before := versions()
		stop()
		from := rendered(4)
		start()
		Eventually(func() int { _, kept := renders(from); return kept }).WithTimeout(readinessTimeout).Should(BeNumerically(">=", 4),
			"two passes of each Component apply their kept render")
		made, _ := renders(from)
		Expect(made).To(BeZero(), "the restarted operator rendered")
		Expect(versions()).To(Equal(before))
	})

	It("seals every kept render again with a new key when asked, under the chart's Role for the key, without a render", func() {
		key := &corev1.Secret{}
		Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: "wavekit-system", Name: "wavekit-component-operator-render-key"}, key)).To(Succeed())
		first := key.Annotations["wavekit.dev/active-key"]
		key.Annotations[component.AnnotationRotateRenderKey] = "2026-11-27T12:00:00Z"
		Expect(env.Client.Update(ctx, key)).To(Succeed())
		keyOf := func(name string) func() string {
			return func() string {
				var s corev1.Secret
				Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &s)).To(Succeed())
				return s.Annotations["wavekit.dev/render-key"]
			}
		}
		Eventually(func() string {
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(key), key)).To(Succeed())
			return key.Annotations["wavekit.dev/active-key"]
		}).WithTimeout(readinessTimeout).ShouldNot(Equal(first), "the operator made a new key (update, watch)")
		for _, name := range []string{"app.component.current-render", "sealed.component.current-render"} {
			Eventually(keyOf(name)).WithTimeout(readinessTimeout).Should(Equal(key.Annotations["wavekit.dev/active-key"]), name)
		}
		made, _ := renders(0)
		Expect(made).To(Equal(4), "the rotation rendered")
	})

	It("renders each Component once when the key is lost, and says why", func() {
		stop()
		key := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "wavekit-system", Name: "wavekit-component-operator-render-key"}}
		Expect(env.Client.Delete(ctx, key)).To(Succeed())
		from := rendered(4)
		start()
		for _, c := range []*v1alpha1.Component{app, sealed} {
			Eventually(func() string { return statusOf(ctx, env, c) }).WithTimeout(readinessTimeout).Should(And(HavePrefix("True/Ready"),
				ContainSubstring("rendered again, since the kept render in Secret "+ns+"/"+c.Name+".component.current-render cannot be read: its key"),
				ContainSubstring("is not among the keys held of Secret "+keyRef)))
		}
		Eventually(func() int { _, kept := renders(from); return kept }).WithTimeout(readinessTimeout).Should(BeNumerically(">=", 4))
		made, _ := renders(from)
		Expect(made).To(Equal(2), "each Component renders once")
		Expect(eventTexts(ctx, env)).To(ContainSubstring(component.ReasonRenderedAgain))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(key), key)).To(Succeed(), "a new key is made")
		collect()
	})

	It("shows none of the values anywhere but in the Secrets that hold them", func() {
		for _, c := range []string{"app", "sealed"} {
			code, out, errOut := runWavekit(ctx, kubeconfig, "diff", "component", ns+"/"+c, "--operator-name", "e2e.wavekit.dev",
				"--source", "kept="+chartDir, "--source", "sealed="+sealedDir, "--cache-dir", GinkgoT().TempDir(), "-o", "json")
			Expect(code).To(BeNumerically("<=", 1), errOut)
			outputs["wavekit diff component "+c] = out + errOut
		}
		code, out, errOut := runWavekit(ctx, kubeconfig, "diff", "rel", chartDir, "-n", cliNS, "--set", "token=cli-token-third")
		Expect(code).To(Equal(1), errOut)
		Expect(out).To(ContainSubstring("Secret " + cliNS + "/rel-token"))
		outputs["wavekit diff"] = out + errOut

		haystacks := map[string]string{"the operator's log": logs.String() + string(operator.Out.Contents()) + string(operator.Err.Contents()),
			"the Events": eventTexts(ctx, env), "the spans": sink.Text()}
		Expect(haystacks["the operator's log"]).To(ContainSubstring("Reconcil"), "the log is verbose enough to leak")
		Expect(haystacks["the operator's log"]).NotTo(ContainSubstring("may not be listed and watched"), "the chart's Role lets the operator follow its key")
		Expect(sink.Spans()).NotTo(BeEmpty())
		for _, namespace := range []string{ns, cliNS} {
			haystacks["the statuses in "+namespace] = componentStatuses(ctx, env, namespace)
		}
		for name, bodies := range alerts {
			Expect(bodies()).NotTo(BeEmpty(), "no alert was sent")
			haystacks[name] = strings.Join(bodies(), "\n")
		}
		for _, path := range []string{"/", "/c/component.wavekit.dev/" + ns + "/app", "/c/component.wavekit.dev/" + ns + "/sealed"} {
			haystacks["the page "+path] = webPage(webBase+path, viewer)
		}
		for command, out := range outputs {
			haystacks["the output of "+command] = out
		}
		blobs := map[string][]byte{}
		var secrets corev1.SecretList
		Expect(env.Client.List(ctx, &secrets)).To(Succeed())
		for _, s := range secrets.Items {
			id := s.Namespace + "/" + s.Name
			if targets[id] || inputs[id] {
				continue
			}
			for k, v := range s.Data {
				blobs["Secret "+id+" "+k] = v
			}
			blobs["Secret "+id+" annotations"] = annotationsOf(s.Annotations)
		}
		var configMaps corev1.ConfigMapList
		Expect(env.Client.List(ctx, &configMaps)).To(Succeed())
		for _, cm := range configMaps.Items {
			for k, v := range cm.Data {
				blobs["ConfigMap "+cm.Namespace+"/"+cm.Name+" "+k] = []byte(v)
			}
			for k, v := range cm.BinaryData {
				blobs["ConfigMap "+cm.Namespace+"/"+cm.Name+" "+k] = v
			}
			blobs["ConfigMap "+cm.Namespace+"/"+cm.Name+" annotations"] = annotationsOf(cm.Annotations)
		}
		Expect(blobs).To(HaveKey("Secret kept/app.component.current-render objects.sealed"), "the kept renders are searched")
		Expect(blobs).To(HaveKey("Secret "+cliNS+"/wavekit.rel sealed"), "the CLI's record is searched")

		var words []string
		for _, w := range invariants.SecretWords(values) {
			if !strings.Contains(w, "-----") { // PEM's armour, in every certificate
				words = append(words, w)
			}
		}
		for _, known := range []string{"token-marker-first", "token-marker-second", "cli-token-marker", "cli-token-second"} {
			Expect(words).To(ContainElement(known), "the target Secrets held %s", known)
		}
		Expect(len(words)).To(BeNumerically(">", 20), "passwords, keys and tokens of several renders")
		var found []string
		for _, v := range invariants.Secrets(append(words, base64Words(words)...), haystacks) {
			found = append(found, v.Object+": "+v.Message)
		}
		for where, blob := range blobs {
			for _, w := range words {
				if invariants.Holds(blob, w) {
					found = append(found, where+": holds a Secret's value ("+w[:2]+"…)")
				}
			}
		}
		Expect(found).To(BeEmpty())
	})
})

// webPage returns the body of a page of the status page, as token.
func webPage(url, token string) string {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "Bearer "+token)
	var body string
	Eventually(func(g Gomega) {
		resp, err := http.DefaultClient.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK), string(data))
		body = string(data)
	}).WithTimeout(30 * time.Second).Should(Succeed())
	return body
}

func annotationsOf(annotations map[string]string) []byte {
	data, _ := json.Marshal(annotations)
	return data
}

// base64Words are the words in base64, as a Secret's data or a log line
// that printed bytes would hold them.
func base64Words(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(w)), "=")
	}
	return out
}
