package receivers_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

var httpClient = &http.Client{Timeout: 30 * time.Second}

// reply is the receiver's answer.
type reply struct {
	code int
	text string
}

// post sends body to the receiver's path with headers.
func post(path string, body []byte, headers map[string]string) reply {
	GinkgoHelper()
	req, err := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := httpClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return reply{code: resp.StatusCode, text: string(text)}
}

// hmacHex is sha256=<hex HMAC-SHA256 of body with key>, as GitHub's
// X-Hub-Signature-256 and a generic sender's X-Signature.
func hmacHex(key string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// github are the headers GitHub sends with a push, signed with key.
func github(key, delivery string, body []byte) map[string]string {
	return map[string]string{"X-GitHub-Event": "push", "X-GitHub-Delivery": delivery,
		"X-Hub-Signature-256": hmacHex(key, body), "Content-Type": "application/json"}
}

// pushBody is a small push event; n makes it another push.
func pushBody(n int) []byte {
	return []byte(fmt.Sprintf(`{"ref":"refs/heads/main","after":"%040d"}`, n))
}

// createToken creates a Secret namespace/name whose key token is token.
func createToken(namespace, name, token string) {
	GinkgoHelper()
	Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Data: map[string][]byte{"token": []byte(token)}})).To(Succeed())
}

// createReceiver creates a Receiver and returns its path once the operator
// wrote it.
func createReceiver(namespace, name string, spec v1alpha1.ReceiverSpec) string {
	GinkgoHelper()
	r := &v1alpha1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Spec: spec}
	Expect(env.Client.Create(ctx, r)).To(Succeed())
	Eventually(func() (string, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(r), r)
		return r.Status.WebhookPath, err
	}).WithTimeout(timeout).Should(HavePrefix("/hook/"), "Receiver %s/%s", namespace, name)
	return r.Status.WebhookPath
}

// createComponent creates a Component of the source site with labels and
// waits until it is Ready.
func createComponent(namespace, name string, labels map[string]string) {
	GinkgoHelper()
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: v1alpha1.ComponentSpec{Source: "site", Values: &apiextensionsv1.JSON{Raw: []byte(`{"greeting":"hi"}`)}}}
	Expect(env.Client.Create(ctx, c)).To(Succeed())
	waitState(c)
}

// waitState waits until the Component is Ready.
func waitState(c *v1alpha1.Component) {
	GinkgoHelper()
	Eventually(func() (string, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)
		return string(c.Status.State), err
	}).WithTimeout(timeout).Should(Equal("Ready"), "Component %s/%s", c.Namespace, c.Name)
}

// requested is the reconcile request a Component or ComponentSet carries
// (its annotation) and the one it handled last.
func requested(obj client.Object) (annotation, handled string) {
	GinkgoHelper()
	Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	switch o := obj.(type) {
	case *v1alpha1.Component:
		handled = o.Status.LastHandledReconcileAt
	case *v1alpha1.ComponentSet:
		handled = o.Status.LastHandledReconcileAt
	}
	return obj.GetAnnotations()[requestKey], handled
}

// component is a Component to read.
func component(namespace, name string) *v1alpha1.Component {
	return &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

// handledBy waits until obj's status says it handled its request, and
// returns the request.
func handledBy(obj client.Object) string {
	GinkgoHelper()
	annotation, _ := requested(obj)
	Expect(annotation).NotTo(BeEmpty(), "%s/%s carries no request", obj.GetNamespace(), obj.GetName())
	Eventually(func() string { _, handled := requested(obj); return handled }).WithTimeout(timeout).Should(Equal(annotation),
		"%s/%s handles its request", obj.GetNamespace(), obj.GetName())
	return annotation
}

// jsonBody encodes v.
func jsonBody(v any) []byte {
	GinkgoHelper()
	data, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return data
}
