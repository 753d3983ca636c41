package component_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/invariants"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// The renders a reconciler keeps hold what the objects hold (here a random
// value, as a chart's randAlphaNum password), sealed with a key of the
// operator's own Secret (docs/security-secrets.md, "What is kept where").
var _ = Describe("kept renders", func() {
	var (
		ctx    context.Context
		ns     string
		key    types.NamespacedName
		opts   component.ReconcilerOptions
		passes *passCounter
	)

	BeforeEach(func() {
		ctx = context.Background()
		ns = newNamespace(ctx)
		key = types.NamespacedName{Namespace: ns, Name: "render-key"}
		opts = component.ReconcilerOptions{RequeueInterval: time.Second, RenderKey: key}
		passes = &passCounter{}
	})

	// install makes a Ready component of a random value whose last Ready
	// render is kept too (remediation Rollback), and returns it with the value.
	install := func() (*operatorHarness, *v1alpha1.Component, string) {
		GinkgoHelper()
		h := startOperator(ctx, ns, opts, passes.count)
		c := newComponent(ns, "app", map[string]any{"random": "password"})
		c.Spec.Remediation = &component.Remediation{Strategy: component.RemediateRollback}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		eventually(func() *corev1.Secret { return getSecret(ctx, ns, "app.component.render") }).ShouldNot(BeNil())
		return h, c, getConfigMap(ctx, ns, "password").Data["value"]
	}
	restart := func(h *operatorHarness) *operatorHarness {
		GinkgoHelper()
		h.stop()
		passes = &passCounter{}
		h = startOperator(ctx, ns, opts, passes.count)
		eventually(passes.get).Should(BeNumerically(">=", 3))
		return h
	}
	keptKeys := func() []string {
		GinkgoHelper()
		var out []string
		for _, name := range []string{"app.component.current-render", "app.component.render"} {
			out = append(out, getSecret(ctx, ns, name).Annotations["wavekit.dev/render-key"])
		}
		return out
	}

	It("holds none of the render's values in a Secret, and is sealed again with a new key on request, without a render", func() {
		h, c, value := install()
		Expect(secretsHolding(ctx, ns, value)).To(BeEmpty(), "a Secret holds the rendered value")
		keys := getSecret(ctx, key.Namespace, key.Name)
		Expect(keys).NotTo(BeNil(), "the key Secret is created on first use")
		first := keys.Annotations["wavekit.dev/active-key"]
		Expect(keptKeys()).To(Equal([]string{first, first}))

		By("asking for a new key")
		keys.Annotations[component.AnnotationRotateRenderKey] = "2026-11-27T10:00:00Z"
		Expect(env.Client.Update(ctx, keys)).To(Succeed())
		eventually(func() string { return getSecret(ctx, key.Namespace, key.Name).Annotations["wavekit.dev/active-key"] }).ShouldNot(Equal(first))
		second := getSecret(ctx, key.Namespace, key.Name).Annotations["wavekit.dev/active-key"]
		eventually(keptKeys).Should(Equal([]string{second, second}), "both kept renders are sealed with the new key")
		Expect(getSecret(ctx, key.Namespace, key.Name).Data).To(HaveLen(2), "the previous key is kept for reading")
		Expect(h.generator.renders()).To(Equal(1), "the rotation rendered")
		Expect(getConfigMap(ctx, ns, "password").Data["value"]).To(Equal(value))

		By("a restart reads the resealed render and renders nothing")
		h = restart(h)
		Expect(h.generator.renders()).To(BeZero())
		Expect(getComponent(ctx, c).Status.History).To(HaveLen(1))
	})

	It("renders once when its key is lost, and says why", func() {
		h, c, value := install()
		h.stop()
		Expect(env.Client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})).To(Succeed())
		h = restart(h)
		eventually(func() string { return readyCondition(ctx, c) }).Should(And(HavePrefix("True/Ready"),
			ContainSubstring("rendered again, since the kept render in Secret "+ns+"/app.component.current-render cannot be read: its key"),
			ContainSubstring("is not among the keys held of Secret "+key.String())))
		Expect(getConfigMap(ctx, ns, "password").Data["value"]).NotTo(Equal(value), "a new render gives a new random value")
		Expect(warnings(ctx, ns, component.ReasonRenderedAgain)).To(HaveLen(1))
		seen := passes.get()
		eventually(passes.get).Should(BeNumerically(">=", seen+3))
		Expect(h.generator.renders()).To(Equal(1), "renders once")
	})

	It("renders again rather than apply a render that someone else wrote into its Secret", func() {
		h, c, _ := install()
		other := newComponent(ns, "other", map[string]any{"random": "other-password"})
		Expect(env.Client.Create(ctx, other)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, other) }).Should(HavePrefix("True/Ready"))
		h.stop()

		By("a plaintext render with its digest, as an operator before sealing kept one")
		forged := `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"forged","namespace":"` + ns + `"}}]`
		kept := getSecret(ctx, ns, "app.component.current-render")
		keepAsOldOperators(kept, forged)
		Expect(env.Client.Update(ctx, kept)).To(Succeed())
		h = restart(h)
		eventually(func() string { return readyCondition(ctx, c) }).Should(And(HavePrefix("True/Ready"),
			ContainSubstring("it is kept in plaintext, and is not the render")))
		Expect(getConfigMap(ctx, ns, "forged")).To(BeNil(), "the forged render was applied")
		Expect(h.generator.renders()).To(Equal(1))
		h.stop()

		By("another component's sealed render, copied into this one's Secret with this one's inputs")
		copied, target := getSecret(ctx, ns, "other.component.current-render"), getSecret(ctx, ns, "app.component.current-render")
		inputs := target.Annotations["wavekit.dev/inputs-digest"]
		target.Data, target.Annotations = copied.Data, copied.Annotations
		target.Annotations["wavekit.dev/inputs-digest"] = inputs
		Expect(env.Client.Update(ctx, target)).To(Succeed())
		h = restart(h)
		eventually(func() string { return readyCondition(ctx, c) }).Should(And(HavePrefix("True/Ready"),
			ContainSubstring("does not open with its key")))
		Expect(h.generator.renders()).To(Equal(1))
		Expect(getConfigMap(ctx, ns, "password")).NotTo(BeNil())
	})

	It("seals, once and without a render, the renders that an operator before sealing kept in plaintext", func() {
		h, c, value := install()
		h.stop()
		applied := getComponent(ctx, c).Status.Attempt.RenderDigest
		cm := `[{"apiVersion":"v1","data":{"value":` + jsonString(value) + `},"kind":"ConfigMap","metadata":{"name":"password","namespace":"` + ns + `"}}]`
		Expect(digestOf(cm)).To(Equal(applied), "the test writes the render as it was rendered")
		for _, name := range []string{"app.component.current-render", "app.component.render"} {
			kept := getSecret(ctx, ns, name)
			keepAsOldOperators(kept, cm)
			Expect(env.Client.Update(ctx, kept)).To(Succeed())
		}
		Expect(secretsHolding(ctx, ns, value)).To(HaveLen(2), "the old operator's renders hold the value")

		h = restart(h)
		Expect(h.generator.renders()).To(BeZero(), "the plaintext render was rendered again")
		Expect(getConfigMap(ctx, ns, "password").Data["value"]).To(Equal(value))
		eventually(func() []string { return secretsHolding(ctx, ns, value) }).Should(BeEmpty(), "both are sealed")
		Expect(h.counter.Count("update", "secrets")).To(Equal(2), "each is sealed once: %s", h.counter)
	})
})

// keepAsOldOperators makes kept hold objects as operators before sealing
// kept them: gzipped JSON, its digest, no key.
func keepAsOldOperators(kept *corev1.Secret, objects string) {
	GinkgoHelper()
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, err := w.Write([]byte(objects))
	Expect(err).NotTo(HaveOccurred())
	Expect(w.Close()).To(Succeed())
	kept.Data = map[string][]byte{"objects.json.gz": gz.Bytes()}
	delete(kept.Annotations, "wavekit.dev/render-key")
	kept.Annotations["wavekit.dev/render-digest"] = digestOf(objects)
}

// digestOf is a render's digest, as the reconciler computes it, of a JSON
// array of objects sorted by group, kind, namespace and name.
func digestOf(objects string) string {
	sum := sha256.Sum256([]byte(objects))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// secretsHolding names the Secrets of ns that hold value in any of their
// data, as it is, base64-decoded or gunzipped.
func secretsHolding(ctx context.Context, ns, value string) []string {
	GinkgoHelper()
	var list corev1.SecretList
	Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, s := range list.Items {
		for _, data := range s.Data {
			if invariants.Holds(data, value) {
				out = append(out, s.Name)
				break
			}
		}
	}
	return out
}

// warnings are the notes of the Warning Events of reason in ns.
func warnings(ctx context.Context, ns, reason string) []string {
	GinkgoHelper()
	var list eventsv1.EventList
	Expect(env.Client.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.Reason == reason && e.Type == "Warning" {
			out = append(out, e.Note)
		}
	}
	return out
}
