package git_test

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
)

var _ = Describe("what a Component of a Git repository trusts", func() {
	It("renders commits signed with a trusted OpenPGP or SSH key, and refuses unsigned and foreign-signed ones, naming the key, keeping what it applied", func() {
		alice, alicePub, err := gitserver.NewOpenPGPKey("Alice")
		Expect(err).NotTo(HaveOccurred())
		mallory, _, err := gitserver.NewOpenPGPKey("Mallory")
		Expect(err).NotTo(HaveOccurred())
		sshKey, sshPub, err := gitserver.NewSSHSigningKey(GinkgoT().TempDir(), "alice")
		Expect(err).NotTo(HaveOccurred())
		createSecret(teamA, "trusted", map[string][]byte{"alice.asc": alicePub, "alice.sshpub": sshPub})

		repo, err := server.NewRepo("signed")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Write(site("deploy", "pgp"))).To(Succeed())
		_, err = repo.CommitOpenPGPSigned("signed", alice)
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Push()).To(Succeed())
		spec := gitSpec(server.HTTPURL(repo.Name), "deploy", every)
		spec.Git.Verify = &v1alpha1.GitVerification{SecretRef: v1alpha1.LocalObjectReference{Name: "trusted"}}
		c := createComponent(teamA, "signed", spec)
		waitVersion(c, "pgp")
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
		verified := meta.FindStatusCondition(c.Status.Conditions, "SourceVerified")
		Expect(verified).NotTo(BeNil())
		Expect(verified.Message).To(ContainSubstring("signed by OpenPGP key " + gitserver.Fingerprint(alice)))

		Expect(repo.Write(site("deploy", "ssh"))).To(Succeed())
		_, err = repo.CommitSSHSigned("ssh-signed", sshKey)
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Push()).To(Succeed())
		waitVersion(c, "ssh")

		unsigned := push(repo, site("deploy", "unsigned"))
		Eventually(ready(c)).WithTimeout(timeout).Should(And(HavePrefix("False VerificationFailed"), ContainSubstring("commit "+unsigned), ContainSubstring("it is not signed")))
		Expect(data(c, "version")()).To(Equal("ssh"), "nothing of the unsigned commit is applied")

		Expect(repo.Write(site("deploy", "foreign"))).To(Succeed())
		_, err = repo.CommitOpenPGPSigned("foreign", mallory)
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Push()).To(Succeed())
		Eventually(ready(c)).WithTimeout(timeout).Should(ContainSubstring("signed by OpenPGP key " + gitserver.Fingerprint(mallory) + ", which is not one of the keys of Secret trusted"))
		Expect(data(c, "version")()).To(Equal("ssh"))
	})

	It("reaches a repository over SSH with known_hosts, and refuses a host key it does not hold", func() {
		repo := newRepo(server, site("deploy", "ssh"))
		key, err := server.ClientKey()
		Expect(err).NotTo(HaveOccurred())
		other, err := server.OtherKnownHosts()
		Expect(err).NotTo(HaveOccurred())
		createSecret(teamA, "ssh-wrong-host", map[string][]byte{"identity": key, "known_hosts": other})
		createSecret(teamA, "ssh", map[string][]byte{"identity": key, "known_hosts": server.KnownHosts()})
		spec := gitSpec(server.SSHURL(repo.Name), "deploy", every)
		spec.Git.SecretRef = &v1alpha1.LocalObjectReference{Name: "ssh-wrong-host"}
		wrong := createComponent(teamA, "wrong-host", spec)
		Eventually(ready(wrong)).WithTimeout(timeout).Should(And(HavePrefix("False HostKeyMismatch"), ContainSubstring("host key mismatch"), ContainSubstring(server.HostKeyFingerprint())))
		Expect(data(wrong, "version")()).To(BeEmpty())

		spec.Git.SecretRef = &v1alpha1.LocalObjectReference{Name: "ssh"}
		c := createComponent(teamA, "over-ssh", spec)
		waitVersion(c, "ssh")
	})

	It("keeps credentials in their namespace and out of every status, Event and log line", func() {
		repo := newRepo(private, site("deploy", "private"))
		createSecret(teamA, "creds", map[string][]byte{"username": []byte("bot"), "password": []byte(password)})
		spec := gitSpec(private.HTTPURL(repo.Name), "deploy", every)
		spec.Git.SecretRef = &v1alpha1.LocalObjectReference{Name: "creds"}
		owner := createComponent(teamA, "private", spec)
		waitVersion(owner, "private")

		anonymous := createComponent(teamB, "no-creds", gitSpec(private.HTTPURL(repo.Name), "deploy", every))
		Eventually(ready(anonymous)).WithTimeout(timeout).Should(And(HavePrefix("False"), ContainSubstring("authentication failed"), ContainSubstring("no credentials given")))
		borrowing := createComponent(teamB, "borrows", spec)
		Eventually(ready(borrowing)).WithTimeout(timeout).Should(ContainSubstring("spec.git.secretRef: Secret creds not found"))
		Expect(data(anonymous, "version")()).To(BeEmpty())
		Expect(data(borrowing, "version")()).To(BeEmpty())

		// A token written where a URL's user name goes, as some hosts
		// document it (https://<token>@host/…).
		const token = "ghp_T0ken-never-printed"
		inURL := createComponent(teamA, "token-in-url", gitSpec(strings.Replace(private.HTTPURL(repo.Name), "://", "://"+token+"@", 1), "deploy", every))
		Eventually(ready(inURL)).WithTimeout(timeout).Should(And(HavePrefix("False"), ContainSubstring("holds credentials: put them in the Secret instead")))
		Expect(data(inURL, "version")()).To(BeEmpty())

		for _, secret := range []string{password, token} {
			Expect(string(logs.Contents())).NotTo(ContainSubstring(secret))
			for _, ns := range []string{teamA, teamB} {
				events := &corev1.EventList{}
				Expect(env.Client.List(ctx, events, client.InNamespace(ns))).To(Succeed())
				for _, e := range events.Items {
					Expect(e.Message).NotTo(ContainSubstring(secret))
				}
				components := &v1alpha1.ComponentList{}
				Expect(env.Client.List(ctx, components, client.InNamespace(ns))).To(Succeed())
				for _, c := range components.Items {
					for _, cond := range c.Status.Conditions {
						Expect(cond.Message).NotTo(ContainSubstring(secret))
					}
				}
			}
		}
	})

	It("says why, with a reason of its own, keeps what it applied and applies nothing for an unknown ref, a missing path, a repository over the size limit and a refused URL", func() {
		repo := newRepo(server, site("deploy", "v1"))
		c := createComponent(teamA, "bad-input", gitSpec(server.HTTPURL(repo.Name), "deploy", every))
		waitVersion(c, "v1")
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)).To(Succeed())
		c.Spec.Git.Ref = &v1alpha1.GitRef{Branch: "nope"}
		Expect(env.Client.Update(ctx, c)).To(Succeed())
		Eventually(ready(c)).WithTimeout(timeout).Should(And(HavePrefix("False RefNotFound"), ContainSubstring("no branch nope (branches: main; tags: none)")))
		Expect(data(c, "version")()).To(Equal("v1"), "the last render stays applied")

		missing := createComponent(teamA, "missing-path", gitSpec(server.HTTPURL(repo.Name), "nothere", every))
		Eventually(ready(missing)).WithTimeout(timeout).Should(And(HavePrefix("False PathNotFound"), ContainSubstring("spec.git.path nothere: no such path in "+server.HTTPURL(repo.Name))))

		random := make([]byte, 1600<<10)
		_, _ = rand.Read(random)
		files := site("deploy", "large")
		files["blob"] = hex.EncodeToString(random)
		large := newRepo(server, files)
		big := createComponent(teamA, "too-large", gitSpec(server.HTTPURL(large.Name), "deploy", every))
		Eventually(ready(big)).WithTimeout(timeout).Should(And(HavePrefix("False SourceTooLarge"), ContainSubstring("exceeds the limit of 2 MiB")))
		Expect(data(big, "version")()).To(BeEmpty())

		refused := newRepo(server, site("deploy", "refused"))
		ns := &corev1.Namespace{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Name: teamB}, ns)).To(Succeed())
		patch := client.MergeFrom(ns.DeepCopy())
		metav1.SetMetaDataAnnotation(&ns.ObjectMeta, operatorName+"/allowed-sources", "https://git.example.com/**")
		Expect(env.Client.Patch(ctx, ns, patch)).To(Succeed())
		DeferCleanup(func() {
			Expect(env.Client.Get(ctx, client.ObjectKey{Name: teamB}, ns)).To(Succeed())
			before := ns.DeepCopy()
			delete(ns.Annotations, operatorName+"/allowed-sources")
			Expect(env.Client.Patch(ctx, ns, client.MergeFrom(before))).To(Succeed())
		})
		notAllowed := createComponent(teamB, "not-allowed", gitSpec(server.HTTPURL(refused.Name), "deploy", every))
		Eventually(ready(notAllowed)).WithTimeout(timeout).Should(And(HavePrefix("False SourceNotAllowed"), ContainSubstring("spec.git.url "+server.HTTPURL(refused.Name)+" is not an allowed source")))
		Consistently(func() int { return server.Counts(refused.Name).InfoRefs }).WithTimeout(3*time.Second).Should(BeZero(), "no request reaches a refused repository")
	})
})
