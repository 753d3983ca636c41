package git_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/crypto/ssh"

	"github.com/wavekit-dev/wavekit/internal/testing/gitserver"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

// signedRepos counts the repositories of the verification specs.
var signedRepos int

var _ = Describe("verification", func() {
	var (
		trustedPGP, foreignPGP *openpgp.Entity
		trustedPGPPub          []byte
		trustedSSH, foreignSSH string
		trustedSSHPub          []byte
		keys                   *git.KeyRing
		repo                   *gitserver.Repo
		src                    *git.Source
	)
	BeforeEach(func() {
		var err error
		trustedPGP, trustedPGPPub, err = gitserver.NewOpenPGPKey("Alice")
		Expect(err).NotTo(HaveOccurred())
		foreignPGP, _, err = gitserver.NewOpenPGPKey("Mallory")
		Expect(err).NotTo(HaveOccurred())
		dir := GinkgoT().TempDir()
		trustedSSH, trustedSSHPub, err = gitserver.NewSSHSigningKey(dir, "alice")
		Expect(err).NotTo(HaveOccurred())
		foreignSSH, _, err = gitserver.NewSSHSigningKey(dir, "mallory")
		Expect(err).NotTo(HaveOccurred())
		keys, err = git.NewKeyRing("Secret keys", map[string][]byte{"alice.asc": trustedPGPPub, "alice.sshpub": trustedSSHPub, "README": []byte("ignored")})
		Expect(err).NotTo(HaveOccurred())
		signedRepos++
		repo, err = server.NewRepo(fmt.Sprintf("signed-%d", signedRepos))
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.Write(map[string]string{"f": "x"})).To(Succeed())
		src = newSource()
	})
	get := func(mode git.VerifyMode, ref git.Ref) (git.Tree, error) {
		Expect(repo.Push()).To(Succeed())
		return src.Get(ctx, git.Request{URL: server.HTTPURL(repo.Name), Ref: ref, Verify: &git.Verification{Mode: mode, Keys: keys}})
	}

	It("accepts a commit signed with a trusted OpenPGP key and names the key", func() {
		_, err := repo.CommitOpenPGPSigned("signed", trustedPGP)
		Expect(err).NotTo(HaveOccurred())
		tree, err := get(git.VerifyHEAD, git.Ref{})
		Expect(err).NotTo(HaveOccurred())
		Expect(tree.Verified).To(ContainSubstring("signed by OpenPGP key " + fingerprint(trustedPGP) + " (Alice <alice@example.com>)"))
	})

	It("accepts a commit signed with a trusted SSH key (ssh-keygen's signature)", func() {
		_, err := repo.CommitSSHSigned("signed", trustedSSH)
		Expect(err).NotTo(HaveOccurred())
		tree, err := get(git.VerifyHEAD, git.Ref{})
		Expect(err).NotTo(HaveOccurred())
		Expect(tree.Verified).To(MatchRegexp(`commit [0-9a-f]{12} signed by SSH key SHA256:`))
	})

	It("refuses an unsigned commit, and ones signed by foreign keys, naming the key", func() {
		sha, err := repo.Commit("unsigned")
		Expect(err).NotTo(HaveOccurred())
		_, err = get(git.VerifyHEAD, git.Ref{})
		verr := errorAs[*git.VerificationError](err)
		Expect(verr.Object).To(Equal("commit " + sha))
		Expect(err.Error()).To(ContainSubstring("it is not signed"))
		Expect(git.IsTransient(err)).To(BeFalse())

		_, err = repo.CommitOpenPGPSigned("foreign", foreignPGP)
		Expect(err).NotTo(HaveOccurred())
		_, err = get(git.VerifyHEAD, git.Ref{})
		Expect(err).To(MatchError(ContainSubstring("signed by OpenPGP key " + fingerprint(foreignPGP) + ", which is not one of the keys of Secret keys (" + fingerprint(trustedPGP))))

		_, err = repo.CommitSSHSigned("foreign", foreignSSH)
		Expect(err).NotTo(HaveOccurred())
		_, err = get(git.VerifyHEAD, git.Ref{})
		Expect(err).To(MatchError(MatchRegexp(`signed by SSH key SHA256:\S+, which is not one of the keys of Secret keys`)))
	})

	It("names a foreign OpenPGP key by its fingerprint, in the form docs/sources.md shows", func() {
		_, err := repo.CommitOpenPGPSigned("foreign", foreignPGP)
		Expect(err).NotTo(HaveOccurred())
		_, err = get(git.VerifyHEAD, git.Ref{})
		form := regexp.MustCompile(`it is signed by OpenPGP key ([0-9A-F]+), which is not one of the keys of Secret`)
		printed := form.FindStringSubmatch(err.Error())
		Expect(printed).To(HaveLen(2), err.Error())
		Expect(printed[1]).To(Equal(fingerprint(foreignPGP)))
		docs, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "sources.md"))
		Expect(err).NotTo(HaveOccurred())
		shown := form.FindStringSubmatch(strings.Join(strings.Fields(string(docs)), " "))
		Expect(shown).To(HaveLen(2), "docs/sources.md shows no such refusal")
		Expect(shown[1]).To(HaveLen(len(printed[1])), "the docs show a key as the refusal names it: %s", shown[1])
	})

	It("verifies signed tags, and refuses a lightweight one", func() {
		_, err := repo.Commit("release")
		Expect(err).NotTo(HaveOccurred())
		Expect(repo.OpenPGPSignedTag("v1.0.0", trustedPGP)).To(Succeed())
		Expect(repo.SSHSignedTag("v1.1.0", trustedSSH)).To(Succeed())
		Expect(repo.SSHSignedTag("v1.2.0", foreignSSH)).To(Succeed())
		Expect(repo.Tag("v1.3.0")).To(Succeed())
		tree, err := get(git.VerifyTag, git.Ref{Tag: "v1.0.0"})
		Expect(err).NotTo(HaveOccurred())
		Expect(tree.Verified).To(HavePrefix("tag v1.0.0 signed by OpenPGP key " + fingerprint(trustedPGP)))
		tree, err = get(git.VerifyTag, git.Ref{SemVer: "~1.1.0"})
		Expect(err).NotTo(HaveOccurred())
		Expect(tree.Verified).To(HavePrefix("tag v1.1.0 signed by SSH key SHA256:"))
		_, err = get(git.VerifyTag, git.Ref{Tag: "v1.2.0"})
		Expect(err).To(MatchError(ContainSubstring("which is not one of the keys")))
		_, err = get(git.VerifyTag, git.Ref{Tag: "v1.3.0"})
		Expect(err).To(MatchError(ContainSubstring("lightweight tag")))
		_, err = get(git.VerifyTagAndHEAD, git.Ref{Tag: "v1.0.0"})
		Expect(err).To(MatchError(ContainSubstring("commit")), "the tag is signed, its commit is not")
	})

	It("refuses an SSH signature an RSA key made over SHA-1 (ssh-rsa), as OpenSSH does", func() {
		rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
		Expect(err).NotTo(HaveOccurred())
		signer, err := ssh.NewSignerFromKey(rsaKey)
		Expect(err).NotTo(HaveOccurred())
		keys, err = git.NewKeyRing("Secret keys", map[string][]byte{"rsa.sshpub": ssh.MarshalAuthorizedKey(signer.PublicKey())})
		Expect(err).NotTo(HaveOccurred())
		algorithms := signer.(ssh.AlgorithmSigner)

		_, err = repo.CommitSSHSignedWith("sha2", algorithms, ssh.KeyAlgoRSASHA512)
		Expect(err).NotTo(HaveOccurred())
		tree, err := get(git.VerifyHEAD, git.Ref{})
		Expect(err).NotTo(HaveOccurred())
		Expect(tree.Verified).To(ContainSubstring("signed by SSH key " + ssh.FingerprintSHA256(signer.PublicKey())))

		_, err = repo.CommitSSHSignedWith("sha1", algorithms, ssh.KeyAlgoRSA)
		Expect(err).NotTo(HaveOccurred())
		_, err = get(git.VerifyHEAD, git.Ref{})
		Expect(errorAs[*git.VerificationError](err).Err).To(MatchError(ContainSubstring("is ssh-rsa, which OpenSSH refuses")))
	})

	It("checks a signature against the object the cache kept only if it is the object signed", func() {
		dir := GinkgoT().TempDir()
		cached := func() *git.Source {
			cache, err := fetch.NewCache(dir, 1<<30)
			Expect(err).NotTo(HaveOccurred())
			return git.New(cache)
		}
		signed, err := repo.CommitOpenPGPSigned("signed", trustedPGP)
		Expect(err).NotTo(HaveOccurred())
		src = cached()
		_, err = get(git.VerifyHEAD, git.Ref{})
		Expect(err).NotTo(HaveOccurred())
		unsigned, err := repo.Commit("unsigned")
		Expect(err).NotTo(HaveOccurred())
		_, err = get(git.VerifyHEAD, git.Ref{})
		Expect(err).To(MatchError(ContainSubstring("it is not signed")), "its tree is in the cache now")

		By("the cache's copy of the unsigned commit replaced by the signed one")
		raw, err := repo.Git("cat-file", "commit", signed)
		Expect(err).NotTo(HaveOccurred())
		Expect(replaceCachedCommit(dir, unsigned, raw+"\n")).To(Succeed())
		src = cached()
		_, err = get(git.VerifyHEAD, git.Ref{})
		Expect(errorAs[*git.VerificationError](err).Err).To(MatchError("the copy of commit " + unsigned + " the cache holds is not that object"))
	})

	It("refuses a key ring without keys, and a Tag mode without a tag", func() {
		_, err := git.NewKeyRing("Secret empty", map[string][]byte{"key": []byte("x")})
		Expect(err).To(MatchError("Secret empty holds no key named *.asc (OpenPGP) or *.sshpub (SSH)"))
		_, err = git.NewKeyRing("Secret bad", map[string][]byte{"a.asc": []byte("not a key")})
		Expect(err).To(MatchError(ContainSubstring("key a.asc is not an armored OpenPGP key ring")))
		_, err = src.Get(ctx, git.Request{URL: server.HTTPURL(repo.Name), Ref: git.Ref{Branch: "main"}, Verify: &git.Verification{Mode: git.VerifyTag, Keys: keys}})
		Expect(errorAs[*git.RequestError](err).Field).To(Equal("verify.mode"))
	})
})

// replaceCachedCommit replaces, in the cache in dir, the raw commit kept
// with the tree of commit by raw.
func replaceCachedCommit(dir, commit, raw string) error {
	replaced := false
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "meta.json" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var meta map[string]any
		if err := json.Unmarshal(data, &meta); err != nil {
			return err
		}
		extra, _ := meta["extra"].(map[string]any)
		if !strings.HasSuffix(fmt.Sprint(meta["revision"]), commit) || extra == nil {
			return nil
		}
		extra["commit"] = base64.StdEncoding.EncodeToString([]byte(raw))
		if data, err = json.Marshal(meta); err != nil {
			return err
		}
		replaced = true
		return os.WriteFile(path, data, 0o644)
	})
	if err == nil && !replaced {
		err = fmt.Errorf("no tree of %s in %s", commit, dir)
	}
	return err
}

func fingerprint(e *openpgp.Entity) string {
	return gitserver.Fingerprint(e)
}
