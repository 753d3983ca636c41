package releases_test

import (
	"encoding/base64"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/internal/testing/clitest"
	"github.com/wavekit-dev/wavekit/internal/testing/sopstest"
)

var _ = Describe("render --sops-age-key", func() {
	var dir, keyFile, recipient string
	password := base64.StdEncoding.EncodeToString([]byte("cli-sops-plaintext"))

	BeforeEach(func() {
		identity, rcpt, err := sopstest.NewKey()
		Expect(err).NotTo(HaveOccurred())
		recipient = rcpt
		dir = GinkgoT().TempDir()
		secret, err := sopstest.Encrypt([]byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: "+password+"\n"), recipient, "^(data|stringData)$")
		Expect(err).NotTo(HaveOccurred())
		values, err := sopstest.Encrypt([]byte("greeting: cli-values-plaintext\n"), recipient, "")
		Expect(err).NotTo(HaveOccurred())
		files := map[string]string{
			"kustomization.yaml": "resources: [secret.enc.yaml, cm.yaml]\n",
			"secret.enc.yaml":    string(secret),
			"cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  greeting: {{ .Values.greeting | quote }}\n",
			"values.enc.yaml":    string(values),
			"age.txt":            "# created: by the test\n# public key: " + recipient + "\n" + identity + "\n",
		}
		for name, content := range files {
			Expect(os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600)).To(Succeed())
		}
		keyFile = filepath.Join(dir, "age.txt")
	})

	It("decrypts the source's SOPS-encrypted objects and -f files", func() {
		out := clitest.Succeeds("render", dir, "--name", "x", "--sops-age-key", keyFile, "-f", filepath.Join(dir, "values.enc.yaml"))
		Expect(decode(out)).To(ConsistOf("Secret db", "ConfigMap cm"))
		Expect(out).To(ContainSubstring("password: " + password))
		Expect(out).To(ContainSubstring("greeting: cli-values-plaintext"))
		Expect(out).NotTo(ContainSubstring("sops:"))
	})

	It("refuses without a key or with another one, naming the object and the recipients", func() {
		r := clitest.Wavekit("render", dir, "--name", "x")
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(ContainSubstring("Secret db of " + dir + " is encrypted with SOPS: give its age key with --sops-age-key FILE"))

		other, otherRecipient, err := sopstest.NewKey()
		Expect(err).NotTo(HaveOccurred())
		otherFile := filepath.Join(GinkgoT().TempDir(), "other.txt")
		Expect(os.WriteFile(otherFile, []byte(other), 0o600)).To(Succeed())
		r = clitest.Wavekit("render", dir, "--name", "x", "--sops-age-key", otherFile)
		Expect(r.Code).To(Equal(1))
		Expect(r.Stderr).To(And(ContainSubstring(recipient), ContainSubstring(otherRecipient), ContainSubstring("Secret db")))
		Expect(r.Stdout + r.Stderr).NotTo(ContainSubstring(password))
	})
})
