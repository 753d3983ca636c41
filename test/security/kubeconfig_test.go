package security_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// A tenant who may create Secrets and Components tries to make the operator
// run a command, or read one of its own files and send it to a server of the
// tenant's choice, through a kubeconfig Secret.
var _ = Describe("a kubeconfig from a Secret", func() {
	It("never runs an exec command: nothing is executed and Ready names exec", func() {
		ns := "kc-exec"
		createTenant(ns)
		proof := filepath.Join(GinkgoT().TempDir(), "PWNED")
		kubeconfigSecret(ns, "evil-kc", &clientcmdapi.Cluster{Server: "https://127.0.0.1:1", InsecureSkipTLSVerify: true},
			&clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
				APIVersion: "client.authentication.k8s.io/v1", Command: "/bin/sh",
				Args:            []string{"-c", "id > " + proof + `; echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"x"}}'`},
				InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
			}})
		c := newComponent(ns, "evil")
		c.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: "evil-kc"}
		Expect(env.Client.Create(ctx, c)).To(Succeed())

		eventually(func() string { return readyCondition(c) }).Should(And(
			HavePrefix("False/"),
			ContainSubstring(`Secret kc-exec/evil-kc, key "value"`),
			ContainSubstring(`user "tenant" uses exec`)))
		Expect(proof).NotTo(BeAnExistingFile())
	})

	It("never uses an auth-provider", func() {
		ns := "kc-authprovider"
		createTenant(ns)
		kubeconfigSecret(ns, "provider-kc", &clientcmdapi.Cluster{Server: "https://127.0.0.1:1", InsecureSkipTLSVerify: true},
			&clientcmdapi.AuthInfo{AuthProvider: &clientcmdapi.AuthProviderConfig{Name: "oidc", Config: map[string]string{"idp-issuer-url": "https://127.0.0.1:1"}}})
		c := newComponent(ns, "provider")
		c.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: "provider-kc"}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(c) }).Should(And(
			HavePrefix("False/"), ContainSubstring(`Secret kc-authprovider/provider-kc`), ContainSubstring(`user "tenant" uses auth-provider`)))
	})

	DescribeTable("never reads a file of the operator nor sends anything",
		func(ns, field string, withFile func(path string, cluster *clientcmdapi.Cluster, user *clientcmdapi.AuthInfo)) {
			var requests atomic.Int64
			server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				requests.Add(1)
				w.WriteHeader(http.StatusOK)
			}))
			DeferCleanup(server.Close)
			path := filepath.Join(GinkgoT().TempDir(), "operator-file")
			Expect(os.WriteFile(path, []byte("the operator's own secret"), 0o600)).To(Succeed())

			createTenant(ns)
			cluster := &clientcmdapi.Cluster{Server: server.URL, InsecureSkipTLSVerify: true}
			user := &clientcmdapi.AuthInfo{}
			withFile(path, cluster, user)
			kubeconfigSecret(ns, "file-kc", cluster, user)
			c := newComponent(ns, "files")
			c.Spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: "file-kc"}
			Expect(env.Client.Create(ctx, c)).To(Succeed())

			eventually(func() string { return readyCondition(c) }).Should(And(
				HavePrefix("False/"), ContainSubstring("Secret "+ns+"/file-kc"), ContainSubstring("sets "+field)))
			Consistently(requests.Load).WithTimeout(2 * time.Second).Should(BeZero())
		},
		Entry("tokenFile", "kc-tokenfile", `tokenFile`, func(path string, _ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			u.TokenFile = path
		}),
		Entry("client-certificate", "kc-cert", `client-certificate`, func(path string, _ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			u.ClientCertificate, u.ClientKeyData = path, []byte("inline")
		}),
		Entry("client-key", "kc-key", `client-key`, func(path string, _ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			u.ClientKey, u.ClientCertificateData = path, []byte("inline")
		}),
		Entry("certificate-authority", "kc-ca", `certificate-authority`, func(path string, c *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			c.CertificateAuthority, c.InsecureSkipTLSVerify, u.Token = path, false, "inline"
		}),
	)
})
