package receivers_test

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

var _ = Describe("webhooks into a Receiver", Ordered, func() {
	const key = "github-secret-0f3a"
	var githubPath string
	web := component(teamA, "web")

	BeforeAll(func() {
		createComponent(teamA, "web", map[string]string{"tier": "front"})
		createComponent(teamB, "web", map[string]string{"tier": "front"})
		createToken(teamA, "github-token", key)
		githubPath = createReceiver(teamA, "github", v1alpha1.ReceiverSpec{Type: v1alpha1.ReceiverGitHub, Events: []string{"push"},
			SecretRef: v1alpha1.LocalObjectReference{Name: "github-token"},
			Resources: []v1alpha1.ReceiverResource{{Kind: "Component", Name: "web"}}})
	})

	It("takes a push signed as GitHub signs it and the Component handles the reconcile it asks for", func() {
		before, _ := requested(web)
		r := post(githubPath, pushBody(1), github(key, "delivery-1", pushBody(1)))
		Expect(r.code).To(Equal(http.StatusOK), r.text)
		after, _ := requested(web)
		Expect(after).NotTo(Equal(before), "the request set the annotation before it was answered")
		Expect(handledBy(web)).To(Equal(after))
		Expect(requested(component(teamB, "web"))).To(BeEmpty(), "team-b's Component of the same name is not asked")
	})

	It("answers 401 to a bad or missing signature and changes nothing", func() {
		before, _ := requested(web)
		forged := github("a-guess", "delivery-2", pushBody(2))
		unsigned := github(key, "delivery-3", pushBody(3))
		delete(unsigned, "X-Hub-Signature-256")
		tampered := github(key, "delivery-4", pushBody(4))
		sha1Only := github(key, "delivery-5", pushBody(5))
		sha1Only["X-Hub-Signature"] = "sha1=" + strings.TrimPrefix(sha1Only["X-Hub-Signature-256"], "sha256=")[:40]
		delete(sha1Only, "X-Hub-Signature-256")
		for name, attempt := range map[string]struct {
			body    []byte
			headers map[string]string
		}{
			"another key": {pushBody(2), forged}, "no signature": {pushBody(3), unsigned},
			"a body changed after signing": {pushBody(40), tampered}, "only a SHA-1 header": {pushBody(5), sha1Only},
		} {
			r := post(githubPath, attempt.body, attempt.headers)
			Expect(r.code).To(Equal(http.StatusUnauthorized), name)
			Expect(r.text).NotTo(ContainSubstring(key))
			after, _ := requested(web)
			Expect(after).To(Equal(before), "%s: the request was answered and changed nothing", name)
		}
	})

	It("ignores a replay: the same delivery, and the same signed body under another delivery ID", func() {
		body := pushBody(6)
		Expect(post(githubPath, body, github(key, "delivery-6", body)).code).To(Equal(http.StatusOK))
		first := handledBy(web)
		for _, delivery := range []string{"delivery-6", "delivery-6-again"} {
			r := post(githubPath, body, github(key, delivery, body))
			Expect(r.code).To(Equal(http.StatusOK))
			Expect(r.text).To(ContainSubstring("handled before"))
			again, _ := requested(web)
			Expect(again).To(Equal(first), "a replay as %s asked for nothing", delivery)
		}
	})

	It("refuses a body over 1 MiB with 413, signed or not, and changes nothing", func() {
		before, _ := requested(web)
		big := []byte(`{"pad":"` + strings.Repeat("x", 1<<20) + `"}`)
		r := post(githubPath, big, github(key, "delivery-big", big))
		Expect(r.code).To(Equal(http.StatusRequestEntityTooLarge))
		after, _ := requested(web)
		Expect(after).To(Equal(before))
	})

	It("takes a GitLab token and a generic HMAC signature, for objects selected by labels", func() {
		createToken(teamA, "gitlab-token", "gitlab-secret-77")
		gitlab := createReceiver(teamA, "gitlab", v1alpha1.ReceiverSpec{Type: v1alpha1.ReceiverGitLab, Events: []string{"Push Hook"},
			SecretRef: v1alpha1.LocalObjectReference{Name: "gitlab-token"},
			Resources: []v1alpha1.ReceiverResource{{Kind: "Component", Name: "*", MatchLabels: map[string]string{"tier": "front"}}}})
		before, _ := requested(web)
		body := []byte(`{"object_kind":"push"}`)
		Expect(post(gitlab, body, map[string]string{"X-Gitlab-Token": "not-it", "X-Gitlab-Event": "Push Hook"}).code).To(Equal(http.StatusUnauthorized))
		r := post(gitlab, body, map[string]string{"X-Gitlab-Token": "gitlab-secret-77", "X-Gitlab-Event": "Push Hook"})
		Expect(r.code).To(Equal(http.StatusOK), r.text)
		Expect(handledBy(web)).NotTo(Equal(before))
		Expect(requested(component(teamB, "web"))).To(BeEmpty(), "matchLabels select in the Receiver's namespace only")

		createToken(teamA, "hmac-token", "hmac-secret-42")
		generic := createReceiver(teamA, "generic", v1alpha1.ReceiverSpec{Type: v1alpha1.ReceiverGenericHMAC,
			SecretRef: v1alpha1.LocalObjectReference{Name: "hmac-token"},
			Resources: []v1alpha1.ReceiverResource{{Kind: "Component", Name: "web"}}})
		before, _ = requested(web)
		body = []byte(`{"image":"registry.example/app:1.2.3"}`)
		Expect(post(generic, body, map[string]string{"X-Signature": hmacHex("hmac-secret-4", body)}).code).To(Equal(http.StatusUnauthorized))
		r = post(generic, body, map[string]string{"X-Signature": hmacHex("hmac-secret-42", body)})
		Expect(r.code).To(Equal(http.StatusOK), r.text)
		Expect(handledBy(web)).NotTo(Equal(before))
	})

	It("follows its Secret: no path until the Secret exists, then one, and a new token moves it", func() {
		r := &v1alpha1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "later"}, Spec: v1alpha1.ReceiverSpec{
			Type: v1alpha1.ReceiverGenericHMAC, SecretRef: v1alpha1.LocalObjectReference{Name: "later-token"},
			Resources: []v1alpha1.ReceiverResource{{Kind: "Component", Name: "web"}}}}
		Expect(env.Client.Create(ctx, r)).To(Succeed())
		ready := func() string {
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(r), r)).To(Succeed())
			if c := meta.FindStatusCondition(r.Status.Conditions, "Ready"); c != nil {
				return string(c.Status) + "/" + c.Reason + " " + r.Status.WebhookPath
			}
			return "none"
		}
		Eventually(ready).WithTimeout(timeout).Should(Equal("False/NoToken "))

		createToken(teamA, "later-token", "first-token")
		Eventually(ready).WithTimeout(timeout).Should(HavePrefix("True/Ready /hook/"), "the Secret's creation was seen")
		first := r.Status.WebhookPath

		secret := &corev1.Secret{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: teamA, Name: "later-token"}, secret)).To(Succeed())
		secret.Data["token"] = []byte("second-token")
		Expect(env.Client.Update(ctx, secret)).To(Succeed())
		Eventually(ready).WithTimeout(timeout).Should(SatisfyAll(HavePrefix("True/Ready /hook/"), Not(HaveSuffix(first))),
			"the Secret's change was seen: the path is made from the token")
		body := []byte(`{"rotated":true}`)
		Expect(post(first, body, map[string]string{"X-Signature": hmacHex("first-token", body)}).code).To(Equal(http.StatusNotFound), "the old path is gone")
		Expect(post(r.Status.WebhookPath, body, map[string]string{"X-Signature": hmacHex("second-token", body)}).code).To(Equal(http.StatusOK))
	})

	It("cannot name another namespace's objects: the field does not exist, and what is named is in the Receiver's namespace", func() {
		attack := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": v1alpha1.GroupVersion.String(), "kind": "Receiver",
			"metadata": map[string]any{"namespace": teamA, "name": "reach-b"},
			"spec": map[string]any{"type": "generic-hmac", "secretRef": map[string]any{"name": "hmac-token"},
				"resources": []any{map[string]any{"kind": "Component", "name": "web", "namespace": teamB}}},
		}}
		err := env.Client.Create(ctx, attack.DeepCopy(), client.FieldValidation(metav1.FieldValidationStrict))
		Expect(err).To(MatchError(ContainSubstring(`unknown field "spec.resources[0].namespace"`)))
		bySlash := attack.DeepCopy()
		Expect(unstructured.SetNestedSlice(bySlash.Object, []any{map[string]any{"kind": "Component", "name": teamB + "/web"}}, "spec", "resources")).To(Succeed())
		Expect(apierrors.IsInvalid(env.Client.Create(ctx, bySlash))).To(BeTrue(), "a name is a name, not namespace/name")

		By("a client that does not validate fields has the namespace dropped: the Receiver names team-a's web")
		Expect(env.Client.Create(ctx, attack)).To(Succeed())
		var created v1alpha1.Receiver
		Eventually(func() (string, error) {
			err := env.Client.Get(ctx, client.ObjectKeyFromObject(attack), &created)
			return created.Status.WebhookPath, err
		}).WithTimeout(timeout).Should(HavePrefix("/hook/"))
		body := []byte(`{"reach":"team-b"}`)
		r := post(created.Status.WebhookPath, body, map[string]string{"X-Signature": hmacHex("hmac-secret-42", body)})
		Expect(r.code).To(Equal(http.StatusOK), r.text)
		Expect(requested(component(teamB, "web"))).To(BeEmpty(), "team-b's Component was not asked")
		handledBy(web)
	})
})
