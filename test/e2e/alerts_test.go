package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/internal/testing/webhooktest"
	"github.com/wavekit-dev/wavekit/pkg/notify/notifiers"
)

// newReceiver starts a real HTTP server that stands for Slack, Teams, a
// webhook or a CloudEvents sink, until the container ends.
func newReceiver() *webhooktest.Server {
	r := webhooktest.New()
	r.Answer(http.StatusAccepted, "")
	DeferCleanup(r.Close)
	return r
}

// jsonBodies are the bodies r got, decoded.
func jsonBodies(r *webhooktest.Server) []map[string]any {
	GinkgoHelper()
	bodies, err := r.JSON()
	Expect(err).NotTo(HaveOccurred())
	return bodies
}

// The reference operator's binary, run as the chart's ServiceAccount with
// the chart's RBAC, sends what happens to Components to receivers that
// real HTTP servers stand for, as the Alerts and Providers of each
// namespace ask; a tenant's Alert gets nothing of another namespace.
var _ = Describe("alerts", Ordered, func() {
	var (
		env         *testcluster.Env
		ctx         = context.Background()
		metricsBase string
		secrets     []string            // every secret value of the spec
		hook        *webhooktest.Server // the shop's signed webhook, which every spec may look at
	)
	secretValue := func(use string) string {
		v := fmt.Sprintf("s3cret-%s-xxxxxxxx", use)[:16]
		secrets = append(secrets, v)
		return v
	}

	BeforeAll(func() {
		env = startControlPlane()
		binary := buildOperatorBinary()
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wavekit-system"}})).To(Succeed())
		applyChartRBAC(ctx, env, "wavekit", "wavekit-system", map[string]any{"rbac": map[string]any{
			"extraRules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets", "configmaps"},
				"verbs": []any{"get", "list", "watch", "create", "update", "patch", "delete"}}},
		}})
		hook = newReceiver()
		otlp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
		DeferCleanup(otlp.Close)
		metricsAddress := freeLocalAddress()
		metricsBase = "http://" + metricsAddress
		startOperatorBinary(binary, serviceAccountConfig(ctx, env, "wavekit-system", "wavekit-component-operator"),
			"--source", "vault="+filepath.Join(testcluster.ModuleRoot(), "test", "e2e", "testdata", "vault"),
			"--otlp-endpoint", otlp.URL, "--metrics-bind-address", metricsAddress, "--metrics-secure=false",
			"--alert-attempts", "3", "--alert-backoff", "10ms", "--alert-burst", "8", "--alert-refill", "1h")
	})

	namespace := func(name string) {
		GinkgoHelper()
		Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	}
	create := func(objects ...client.Object) {
		GinkgoHelper()
		for _, o := range objects {
			Expect(env.Client.Create(ctx, o)).To(Succeed())
		}
	}
	secret := func(ns, name string, data map[string]string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: data}
	}
	provider := func(ns, name string, typ v1alpha1.ProviderType, address, secretName string) *v1alpha1.Provider {
		p := &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ProviderSpec{Type: typ, Address: address}}
		if secretName != "" {
			p.Spec.SecretRef = &v1alpha1.LocalSecretReference{Name: secretName}
		}
		return p
	}
	alert := func(ns, name, providerName string, sources ...v1alpha1.EventSource) *v1alpha1.Alert {
		if len(sources) == 0 {
			sources = []v1alpha1.EventSource{{Kind: "Component", Name: "*"}}
		}
		return &v1alpha1.Alert{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: v1alpha1.AlertSpec{ProviderRef: v1alpha1.LocalProviderReference{Name: providerName}, EventSources: sources}}
	}
	component := func(ns, name string, labels map[string]string, values map[string]any) *v1alpha1.Component {
		GinkgoHelper()
		raw, err := json.Marshal(values)
		Expect(err).NotTo(HaveOccurred())
		c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
			Spec: v1alpha1.ComponentSpec{Source: "vault", Values: &apiextensionsv1.JSON{Raw: raw}}}
		create(c)
		return c
	}

	It("sends what happens to a Component to a signed webhook, Slack, Teams and a CloudEvents sink: what, which, why, the trace ID, and no Secret value", func() {
		namespace("shop")
		slack, teams, sink := newReceiver(), newReceiver(), newReceiver()
		hmacKey, ceToken := secretValue("hmac"), secretValue("cetok")
		slackPath, teamsPath := "/services/T0/B0/"+secretValue("slack"), "/workflows/"+secretValue("teams")
		create(
			secret("shop", "hook", map[string]string{"token": hmacKey}),
			secret("shop", "slack", map[string]string{"address": slack.URL + slackPath}),
			secret("shop", "teams", map[string]string{"address": teams.URL + teamsPath}),
			secret("shop", "sink", map[string]string{"token": ceToken}),
			provider("shop", "hook", v1alpha1.ProviderGenericHMAC, hook.URL+"/alerts", "hook"),
			provider("shop", "slack", v1alpha1.ProviderSlack, "", "slack"),
			provider("shop", "teams", v1alpha1.ProviderMSTeams, "", "teams"),
			provider("shop", "sink", v1alpha1.ProviderCloudEvents, sink.URL, "sink"),
			alert("shop", "hook", "hook"), alert("shop", "slack", "slack"),
			alert("shop", "teams", "teams", v1alpha1.EventSource{Kind: "Component", MatchLabels: map[string]string{"team": "shop"}}),
			alert("shop", "sink", "sink"),
		)
		ok := component("shop", "ok", map[string]string{"team": "shop"}, map[string]any{"password": secretValue("ok")})
		bad := component("shop", "badkey", map[string]string{"team": "shop"}, map[string]any{"password": secretValue("bad"), "badKey": true})
		Eventually(func() string { return readyReason(ctx, env, ok) }).WithTimeout(60 * time.Second).Should(Equal("True/Ready"))
		Eventually(func() string { return readyReason(ctx, env, bad) }).WithTimeout(60 * time.Second).Should(HavePrefix("False/"))

		By("the generic webhook: the event as JSON, signed with the Provider's key")
		byName := func() map[string]map[string]any {
			out := map[string]map[string]any{}
			for _, body := range jsonBodies(hook) {
				out[body["object"].(map[string]any)["name"].(string)] = body
			}
			return out
		}
		Eventually(byName).WithTimeout(60 * time.Second).Should(And(HaveKey("badkey"), HaveKey("ok")))
		var got v1alpha1.Component
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(ok), &got)).To(Succeed())
		ready := byName()["ok"]
		Expect(ready).To(And(HaveKeyWithValue("kind", "Ready"), HaveKeyWithValue("reason", "Ready"), HaveKeyWithValue("severity", "info"),
			HaveKeyWithValue("message", "every object is applied and ready"), HaveKeyWithValue("operator", "e2e.wavekit.dev")))
		Expect(ready["object"]).To(And(HaveKeyWithValue("kind", "Component"), HaveKeyWithValue("namespace", "shop"), HaveKeyWithValue("name", "ok")))
		Expect(ready["traceID"]).To(Equal(got.Status.LastTraceID), "the trace of the Reconcile that wrote Ready")
		Expect(ready["traceID"]).To(MatchRegexp(`^[0-9a-f]{32}$`))
		failure := byName()["badkey"]
		Expect(failure["kind"]).To(BeElementOf("Failed", "Stalled"))
		Expect(failure).To(HaveKeyWithValue("severity", "error"))
		Expect(failure["message"]).To(ContainSubstring("bad key!"), "what is wrong, and where")
		Expect(failure["traceID"]).To(MatchRegexp(`^[0-9a-f]{32}$`))
		for _, req := range hook.Requests() {
			Expect(notifiers.Verify(req.Body, []byte(hmacKey), req.Header.Get(notifiers.SignatureHeader))).To(BeTrue(), "X-Signature: sha256=<hex>")
		}

		By("Slack, Teams and CloudEvents: their own shapes of the same events")
		Eventually(slack.Bodies).Should(ContainElement(ContainSubstring(`"text":"Component shop/ok: Ready: every object is applied and ready"`)))
		Eventually(slack.Bodies).Should(ContainElement(ContainSubstring(`Component shop/badkey`)))
		Eventually(teams.Bodies).Should(ContainElement(And(ContainSubstring(`"type":"AdaptiveCard"`), ContainSubstring(`"text":"Component shop/ok: Ready"`),
			ContainSubstring(`"value":"`+got.Status.LastTraceID+`"`))))
		Eventually(func() []map[string]any { return jsonBodies(sink) }).Should(ContainElement(And(HaveKeyWithValue("specversion", "1.0"), HaveKeyWithValue("type", "dev.wavekit.component.ready"),
			HaveKeyWithValue("source", "/apis/wavekit.dev/v1alpha1/namespaces/shop/components/ok"), HaveKeyWithValue("traceid", got.Status.LastTraceID))))
		for _, req := range sink.Requests() {
			Expect(req.Header.Get("Content-Type")).To(Equal("application/cloudevents+json"))
			Expect(req.Header.Get("Authorization")).To(Equal("Bearer "+ceToken), "the token goes in the header only")
		}

		By("no Secret value in any payload: not the Components' passwords, nor the Providers' keys, tokens and webhook paths")
		for where, r := range map[string]*webhooktest.Server{"the webhook": hook, "Slack": slack, "Teams": teams, "the CloudEvents sink": sink} {
			Expect(r.Requests()).NotTo(BeEmpty())
			for _, text := range r.Bodies() {
				for _, v := range secrets {
					Expect(text).NotTo(ContainSubstring(v), "%s got a secret value", where)
					Expect(text).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte(v))), "%s got a secret value in base64", where)
				}
			}
		}
	})

	It("sends another namespace's Alert nothing of this namespace's Components, though it asks for every one and names one", func() {
		namespace("rival")
		rival := newReceiver()
		create(provider("rival", "hook", v1alpha1.ProviderGeneric, rival.URL, ""),
			alert("rival", "everything", "hook", v1alpha1.EventSource{Kind: "Component"}, v1alpha1.EventSource{Kind: "ComponentSet"}),
			alert("rival", "theirs", "hook", v1alpha1.EventSource{Kind: "Component", Name: "ok"}))
		// The shop's Component changes after the rival's Alerts exist, and
		// the shop's own webhook gets it.
		ok := v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "ok"}}
		edit(ctx, env, &ok, func() {
			ok.Spec.Values = &apiextensionsv1.JSON{Raw: []byte(`{"password":"` + secretValue("ok2") + `","badKey":true}`)}
		})
		Eventually(func() []string {
			var seen []string
			for _, body := range jsonBodies(hook) {
				if body["object"].(map[string]any)["name"] == "ok" {
					seen = append(seen, fmt.Sprintf("%v %v", body["generation"], body["severity"]))
				}
			}
			return seen
		}).WithTimeout(60 * time.Second).Should(ContainElement("2 error"))

		// The rival's own Component: its Alerts work. Alerts are routed in
		// order, and each Provider's in order: once the rival's own event has
		// arrived, anything of the shop's routed to it would have arrived first.
		mine := component("rival", "ok", nil, map[string]any{"password": secretValue("rival")})
		Eventually(func() string { return readyReason(ctx, env, mine) }).WithTimeout(60 * time.Second).Should(Equal("True/Ready"))
		Eventually(func() []map[string]any { return jsonBodies(rival) }).WithTimeout(30 * time.Second).ShouldNot(BeEmpty())
		for _, body := range jsonBodies(rival) {
			Expect(body["object"]).To(HaveKeyWithValue("namespace", "rival"))
		}
	})

	metric := func(name string, labels map[string]string) float64 {
		return metricValue(metricsBase, name, labels)
	}
	countReady := func(ns string, ready bool) func() int {
		return func() int {
			var list v1alpha1.ComponentList
			Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
			n := 0
			for _, c := range list.Items {
				if cond := c.Status.ReadyCondition(); cond != nil && (cond.Status == metav1.ConditionTrue) == ready && cond.Reason != "Processing" {
					n++
				}
			}
			return n
		}
	}

	It("retries a receiver that is down, then drops and counts each alert, while the reconciles go on", func() {
		namespace("outage")
		create(provider("outage", "down", v1alpha1.ProviderGeneric, "http://"+freeLocalAddress()+"/hook", ""), alert("outage", "down", "down"))
		exhausted := func() float64 {
			return metric("wavekit_alerts_dropped_total", map[string]string{"reason": "retries_exhausted"})
		}
		retries := func() float64 { return metric("wavekit_alert_retries_total", nil) }
		exhaustedBefore, retriesBefore := exhausted(), retries()
		readyBefore := metric("wavekit_reconciles_total", map[string]string{"result": "Ready"})
		const k = 6
		for i := range k {
			component("outage", fmt.Sprintf("c%d", i), nil, map[string]any{"password": secretValue(fmt.Sprint("out", i))})
		}
		Eventually(countReady("outage", true)).WithTimeout(60*time.Second).Should(Equal(k), "the reconciles go on")
		// A reconcile is counted once it returns, after the status write.
		reconciledReady := func() float64 { return metric("wavekit_reconciles_total", map[string]string{"result": "Ready"}) }
		Eventually(func() float64 { return reconciledReady() - readyBefore }).Should(BeNumerically(">=", k))
		Eventually(func() float64 { return exhausted() - exhaustedBefore }).WithTimeout(60*time.Second).Should(BeNumerically(">=", k),
			"each Component's Ready, tried three times, then dropped and counted")
		Expect(retries()-retriesBefore).To(BeNumerically(">=", 2*k), "two retries of each")
	})

	It("sends a flood of failures as a bounded number of messages, and counts the rest as held back", func() {
		namespace("flood")
		flood := newReceiver()
		create(provider("flood", "hook", v1alpha1.ProviderGeneric, flood.URL, ""), alert("flood", "hook", "hook"))
		heldBefore := metric("wavekit_alerts_suppressed_total", map[string]string{"reason": "rate_limited"})
		const k, burst = 16, 8
		for i := range k {
			component("flood", fmt.Sprintf("f%02d", i), nil, map[string]any{"password": secretValue(fmt.Sprint("fl", i)), "badKey": true})
		}
		Eventually(countReady("flood", false)).WithTimeout(60 * time.Second).Should(Equal(k))
		Eventually(func() float64 {
			return metric("wavekit_alerts_suppressed_total", map[string]string{"reason": "rate_limited"}) - heldBefore
		}).WithTimeout(30*time.Second).Should(BeNumerically(">=", k-burst), "every failure was told, and the rest held back")
		Eventually(func() int { return len(flood.Requests()) }).Should(Equal(burst))
		Consistently(func() int { return len(flood.Requests()) }).WithTimeout(2 * time.Second).Should(Equal(burst))
	})

	// docs/notifications.md names what each kind of alert is sent for, and
	// docs/concepts.md which condition a failure sets: the alert the
	// operator sends for a failure, and the condition it writes, are the
	// rows that name that failure.
	It("names a failure by the kind and the condition the docs give it: a render error Stalled, a source not fetched Failed, a target that does not answer none", func() {
		namespace("kinds")
		kinds := newReceiver()
		create(provider("kinds", "hook", v1alpha1.ProviderGeneric, kinds.URL, ""), alert("kinds", "hook", "hook"),
			secret("kinds", "faraway", map[string]string{"kubeconfig": "apiVersion: v1\nkind: Config\n" +
				"clusters: [{name: far, cluster: {server: \"https://" + freeLocalAddress() + "\"}}]\n" +
				"users: [{name: far, user: {token: t}}]\ncontexts: [{name: far, context: {cluster: far, user: far}}]\ncurrent-context: far\n"}))
		create(&v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: "kinds", Name: "faraway"}, Spec: v1alpha1.ComponentSpec{
			Source: "vault", KubeConfig: &v1alpha1.SecretKeyReference{Name: "faraway", Key: "kubeconfig"}}})
		Eventually(func() string {
			return readyReason(ctx, env, &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: "kinds", Name: "faraway"}})
		}).WithTimeout(90 * time.Second).Should(HavePrefix("False/TargetUnreachable"))
		// Alerts go out in the order of the status writes: once these two
		// arrived, one for faraway, written before them, would have.
		component("kinds", "broken", nil, map[string]any{"password": secretValue("broken"), "dropKind": true})
		create(&v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: "kinds", Name: "unfetchable"}, Spec: v1alpha1.ComponentSpec{
			Chart: &v1alpha1.ChartSource{Repository: "http://" + freeLocalAddress(), Name: "web"}}})

		for _, failure := range []struct {
			component, kind, condition, concepts, notifications string
		}{
			{"broken", "Stalled", "Stalled", "a render error", "a render error"},
			{"unfetchable", "Failed", "Reconciling", "a source that cannot be fetched now", "a source that cannot be fetched now"},
		} {
			var alerts []map[string]any
			Eventually(func() []map[string]any { return jsonBodies(kinds) }).WithTimeout(60*time.Second).Should(ContainElement(
				HaveKeyWithValue("object", HaveKeyWithValue("name", failure.component)), &alerts), failure.component)
			Expect(alerts).To(HaveEach(HaveKeyWithValue("kind", failure.kind)), failure.component)
			var got v1alpha1.Component
			Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: "kinds", Name: failure.component}, &got)).To(Succeed())
			Expect(meta.IsStatusConditionTrue(got.Status.Conditions, failure.condition)).To(BeTrue(), "%s: %s", failure.component, failure.condition)

			row := docTableRow("docs/notifications.md", "| kind | severity | when |", func(cells []string) bool { return cells[0] == "`"+failure.kind+"`" })
			Expect(row).To(ContainSubstring(failure.notifications), "docs/notifications.md: the row of %s, which the operator sent for %s", failure.kind, failure.component)
			for _, other := range []string{"Failed", "Stalled"} {
				if other != failure.kind {
					otherRow := docTableRow("docs/notifications.md", "| kind | severity | when |", func(cells []string) bool { return cells[0] == "`"+other+"`" })
					Expect(otherRow).NotTo(ContainSubstring(failure.notifications), "docs/notifications.md names %s under %s too", failure.notifications, other)
				}
			}
			Expect(conceptsRow(failure.condition, failure.concepts)).NotTo(BeEmpty(),
				"docs/concepts.md: a row with %s True names %s", failure.condition, failure.concepts)
		}

		Expect(jsonBodies(kinds)).NotTo(ContainElement(HaveKeyWithValue("object", HaveKeyWithValue("name", "faraway"))))
		Expect(strings.Join(strings.Fields(readModuleFile("docs/notifications.md")), " ")).To(ContainSubstring(
			"A Component whose target cluster does not answer sends no alert"))
		Expect(conceptsRow("Reconciling", "an unreachable cluster")).NotTo(BeEmpty())
	})
})

// conceptsRow is the row of docs/concepts.md's table of conditions with
// condition True that names situation, or "".
func conceptsRow(condition, situation string) string {
	GinkgoHelper()
	column := map[string]int{"Ready": 1, "Reconciling": 2, "Stalled": 3}[condition]
	return docTableRow("docs/concepts.md", "| situation | `Ready` | `Reconciling` | `Stalled` | kstatus |", func(cells []string) bool {
		return cells[column] == "True" && strings.Contains(cells[0], situation)
	})
}

// readModuleFile is a file of the module, by its path from the root.
func readModuleFile(path string) string {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(testcluster.ModuleRoot(), path))
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}

// docTableRow returns the first row of the table under header in the
// module's page whose cells (trimmed, without the outer pipes) match, or "".
func docTableRow(page, header string, match func(cells []string) bool) string {
	GinkgoHelper()
	_, table, found := strings.Cut(readModuleFile(page), header+"\n")
	Expect(found).To(BeTrue(), "%s has no table %s", page, header)
	for _, line := range strings.Split(table, "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if match(cells) {
			return line
		}
	}
	return ""
}

// metricValue sums the samples of the metric name whose labels include
// labels, in the operator's /metrics at base (plain HTTP).
func metricValue(base, name string, labels map[string]string) float64 {
	GinkgoHelper()
	sample := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `(\{[^}]*\})? (\S+)$`)
	total := 0.0
	for _, line := range strings.Split(readMetrics(base, ""), "\n") {
		m := sample.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		matches := true
		for k, v := range labels {
			matches = matches && strings.Contains(m[1], k+`="`+v+`"`)
		}
		if matches {
			value, err := strconv.ParseFloat(m[2], 64)
			Expect(err).NotTo(HaveOccurred())
			total += value
		}
	}
	return total
}
