package gitserver

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/crypto/ssh"
)

// Repo is a working repository whose pushes go to a repository the
// Server serves.
type Repo struct {
	// Name is the repository's name on the server.
	Name string
	// Work is the working directory.
	Work string
}

// NewRepo creates the served bare repository name (branch main; commits
// may be fetched by their SHA-1, as GitHub and GitLab allow) and a working
// repository that pushes to it.
func (s *Server) NewRepo(name string) (*Repo, error) {
	bare := filepath.Join(s.Root, name+".git")
	work := filepath.Join(filepath.Dir(s.Root), "work", name)
	r := &Repo{Name: name, Work: work}
	for _, args := range [][]string{
		{"init", "--quiet", "--bare", "-b", "main", bare},
		{"-C", bare, "config", "uploadpack.allowReachableSHA1InWant", "true"},
		{"init", "--quiet", "-b", "main", work},
		{"-C", work, "remote", "add", "origin", bare},
	} {
		if _, err := run("", args...); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// NewRepoWith is NewRepo with files (path → content) in a first commit
// of main, pushed.
func (s *Server) NewRepoWith(name string, files map[string]string) (*Repo, error) {
	r, err := s.NewRepo(name)
	if err != nil {
		return nil, err
	}
	if _, err := r.CommitAndPush(files); err != nil {
		return nil, err
	}
	return r, nil
}

// CommitAndPush writes files, commits every change, pushes and returns
// the commit.
func (r *Repo) CommitAndPush(files map[string]string) (string, error) {
	if err := r.Write(files); err != nil {
		return "", err
	}
	sha, err := r.Commit("change")
	if err != nil {
		return "", err
	}
	return sha, r.Push()
}

// run runs git with a configuration of its own (no user's or system's).
func run(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// Git runs git in the working directory.
func (r *Repo) Git(args ...string) (string, error) { return run(r.Work, args...) }

// Write writes files (path → content) into the working directory; an
// empty content removes the file.
func (r *Repo) Write(files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(r.Work, filepath.FromSlash(name))
		if content == "" {
			if err := os.Remove(p); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Commit commits every change and returns the commit's SHA-1.
func (r *Repo) Commit(message string, config ...string) (string, error) {
	if _, err := r.Git("add", "-A"); err != nil {
		return "", err
	}
	args := append(config, "commit", "--quiet", "--allow-empty", "-m", message)
	if len(config) > 0 {
		args = append(args, "-S")
	}
	if _, err := r.Git(args...); err != nil {
		return "", err
	}
	return r.Git("rev-parse", "HEAD")
}

// CommitSSHSigned commits every change signed with the SSH key in keyFile,
// as git signs with gpg.format=ssh (ssh-keygen -Y sign).
func (r *Repo) CommitSSHSigned(message, keyFile string) (string, error) {
	return r.Commit(message, "-c", "gpg.format=ssh", "-c", "user.signingkey="+keyFile)
}

// CommitOpenPGPSigned commits every change, signed with the OpenPGP key.
func (r *Repo) CommitOpenPGPSigned(message string, key *openpgp.Entity) (string, error) {
	return r.commitSigned(message, func(payload []byte) (string, error) {
		var sig bytes.Buffer
		if err := openpgp.ArmoredDetachSign(&sig, key, bytes.NewReader(payload), nil); err != nil {
			return "", err
		}
		return sig.String(), nil
	})
}

// CommitSSHSignedWith commits every change signed by signer as git signs
// with gpg.format=ssh (OpenSSH's signature format, namespace git, hash
// sha512), the signature made with algorithm: for an RSA key, ssh-rsa
// (SHA-1, which OpenSSH refuses), rsa-sha2-256 or rsa-sha2-512.
func (r *Repo) CommitSSHSignedWith(message string, signer ssh.AlgorithmSigner, algorithm string) (string, error) {
	return r.commitSigned(message, func(payload []byte) (string, error) {
		sum := sha512.Sum512(payload)
		signed := append([]byte("SSHSIG"), ssh.Marshal(struct {
			Namespace, Reserved, HashAlgorithm string
			Hash                               []byte
		}{"git", "", "sha512", sum[:]})...)
		sig, err := signer.SignWithAlgorithm(rand.Reader, signed, algorithm)
		if err != nil {
			return "", err
		}
		blob := append([]byte("SSHSIG"), ssh.Marshal(struct {
			Version                            uint32
			PublicKey                          []byte
			Namespace, Reserved, HashAlgorithm string
			Signature                          []byte
		}{1, signer.PublicKey().Marshal(), "git", "", "sha512", ssh.Marshal(sig)})...)
		return string(pem.EncodeToMemory(&pem.Block{Type: "SSH SIGNATURE", Bytes: blob})), nil
	})
}

// commitSigned commits every change, then replaces the commit with one
// that carries the signature sign makes of it.
func (r *Repo) commitSigned(message string, sign func(payload []byte) (string, error)) (string, error) {
	if _, err := r.Commit(message); err != nil {
		return "", err
	}
	repo, err := gogit.PlainOpen(r.Work)
	if err != nil {
		return "", err
	}
	head, err := repo.Head()
	if err != nil {
		return "", err
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		return "", err
	}
	signed := &object.Commit{Author: c.Author, Committer: c.Committer, Message: c.Message, TreeHash: c.TreeHash, ParentHashes: c.ParentHashes}
	payload := &plumbing.MemoryObject{}
	if err := signed.EncodeWithoutSignature(payload); err != nil {
		return "", err
	}
	reader, err := payload.Reader()
	if err != nil {
		return "", err
	}
	content, err := io.ReadAll(reader)
	if err != nil {
		return "", err
	}
	if signed.PGPSignature, err = sign(content); err != nil {
		return "", err
	}
	obj := repo.Storer.NewEncodedObject()
	if err := signed.Encode(obj); err != nil {
		return "", err
	}
	h, err := repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return "", err
	}
	if _, err := r.Git("update-ref", "HEAD", h.String()); err != nil {
		return "", err
	}
	return h.String(), nil
}

// Tag makes a lightweight tag of HEAD.
func (r *Repo) Tag(name string) error {
	_, err := r.Git("tag", name)
	return err
}

// AnnotatedTag makes an annotated, unsigned tag of HEAD.
func (r *Repo) AnnotatedTag(name string) error {
	_, err := r.Git("tag", "-a", "-m", "release "+name, name)
	return err
}

// SSHSignedTag makes an annotated tag of HEAD signed with the SSH key in
// keyFile.
func (r *Repo) SSHSignedTag(name, keyFile string) error {
	_, err := r.Git("-c", "gpg.format=ssh", "-c", "user.signingkey="+keyFile, "tag", "-s", "-m", "release "+name, name)
	return err
}

// OpenPGPSignedTag makes an annotated tag of HEAD signed with the OpenPGP
// key.
func (r *Repo) OpenPGPSignedTag(name string, key *openpgp.Entity) error {
	repo, err := gogit.PlainOpen(r.Work)
	if err != nil {
		return err
	}
	head, err := repo.Head()
	if err != nil {
		return err
	}
	_, err = repo.CreateTag(name, head.Hash(), &gogit.CreateTagOptions{
		Tagger: &object.Signature{Name: "Test", Email: "test@example.com", When: time.Now()}, Message: "release " + name, SignKey: key})
	return err
}

// Push pushes every branch and tag, forcing: a rewritten history replaces
// the served one.
func (r *Repo) Push() error {
	if _, err := r.Git("push", "--quiet", "--force", "--all", "origin"); err != nil {
		return err
	}
	_, err := r.Git("push", "--quiet", "--force", "--tags", "origin")
	return err
}

// NewSSHSigningKey writes a new ed25519 key in OpenSSH format into dir and
// returns its file and its public key in authorized_keys format.
func NewSSHSigningKey(dir, name string) (keyFile string, public []byte, err error) {
	_, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", nil, err
	}
	block, err := ssh.MarshalPrivateKey(private, "")
	if err != nil {
		return "", nil, err
	}
	keyFile = filepath.Join(dir, name)
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		return "", nil, err
	}
	signer, err := ssh.NewSignerFromKey(private)
	if err != nil {
		return "", nil, err
	}
	return keyFile, ssh.MarshalAuthorizedKey(signer.PublicKey()), nil
}

// NewOpenPGPKey makes a new OpenPGP key and returns it with its armored
// public key.
func NewOpenPGPKey(name string) (*openpgp.Entity, []byte, error) {
	e, err := openpgp.NewEntity(name, "", strings.ToLower(name)+"@example.com", nil)
	if err != nil {
		return nil, nil, err
	}
	var out bytes.Buffer
	w, err := armor.Encode(&out, "PGP PUBLIC KEY BLOCK", nil)
	if err != nil {
		return nil, nil, err
	}
	if err := e.Serialize(w); err != nil {
		return nil, nil, err
	}
	if err := w.Close(); err != nil {
		return nil, nil, err
	}
	return e, out.Bytes(), nil
}

// Fingerprint is how messages name an OpenPGP key: its fingerprint in
// upper-case hex.
func Fingerprint(e *openpgp.Entity) string {
	return strings.ToUpper(hex.EncodeToString(e.PrimaryKey.Fingerprint))
}

// NewLargeRepo creates the served repository name with one commit on main
// of files files, each a small YAML document of about size bytes that no
// other file repeats, spread over directories of 100 (git fast-import
// writes it in a second or two).
func (s *Server) NewLargeRepo(name string, files, size int) error {
	bare := filepath.Join(s.Root, name+".git")
	if _, err := run("", "init", "--quiet", "--bare", "-b", "main", bare); err != nil {
		return err
	}
	cmd := exec.Command("git", "-C", bare, "fast-import", "--quiet")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriter(in)
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter Test <test@example.com> 1700000000 +0000\ndata 5\nlarge\n")
	token := make([]byte, 16)
	for i := range files {
		_, _ = rand.Read(token)
		body := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: file-%06d\ndata:\n  token: %x\n  filler: %q\n", i, token, strings.Repeat("x", max(size-120, 0)))
		fmt.Fprintf(w, "M 100644 inline dir%04d/file%06d.yaml\ndata %d\n%s\n", i/100, i, len(body), body)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := in.Close(); err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %w: %s", err, stderr.String())
	}
	return nil
}

// NewZerosRepo creates the served repository name with one commit on main
// of two files of zeros, a of size bytes and b one byte longer, repacked so
// that one is a delta of the other: a pack of a few hundred KiB whose
// objects inflate to twice size.
func (s *Server) NewZerosRepo(name string, size int) error {
	r, err := s.NewRepo(name)
	if err != nil {
		return err
	}
	zeros := make([]byte, size)
	if err := os.WriteFile(filepath.Join(r.Work, "a"), zeros, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.Work, "b"), append(zeros, 'x'), 0o644); err != nil {
		return err
	}
	if _, err := r.Commit("zeros"); err != nil {
		return err
	}
	if err := r.Push(); err != nil {
		return err
	}
	_, err = run("", "-C", filepath.Join(s.Root, name+".git"), "repack", "-adfq")
	return err
}
