package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git/giturl"
)

// GitOptions are the flags of a source read from a Git repository, as the
// operator's spec.git reads it: SOURCE is the repository's URL, with the
// path and ref in it as kustomize writes remote bases
// (https://host/org/repo//deploy/app?ref=v1.2.0) or in the flags.
// Credentials come from the environment (WAVEKIT_GIT_USERNAME and
// WAVEKIT_GIT_PASSWORD, or WAVEKIT_GIT_BEARER_TOKEN) or, over SSH, from a
// key file or the SSH agent, with the user's known_hosts.
type GitOptions struct {
	ref, semver, path  string
	sshKey, knownHosts string
	caFile             string
	verifyKeys         []string
	verifyMode         string
	submodules         bool
}

// Environment variables the CLI reads Git credentials from.
const (
	envGitUsername    = "WAVEKIT_GIT_USERNAME"
	envGitPassword    = "WAVEKIT_GIT_PASSWORD"
	envGitBearerToken = "WAVEKIT_GIT_BEARER_TOKEN"
)

func (o *GitOptions) AddFlags(cmd *cobra.Command) {
	flags := cmd.Flags()
	flags.StringVar(&o.ref, "git-ref", "", "for a Git SOURCE: a branch, a tag, a commit's SHA-1 or a full ref name (refs/pull/1/head); default: the default branch, or ?ref= in SOURCE")
	flags.StringVar(&o.semver, "git-semver", "", "for a Git SOURCE: take the highest tag a semver range matches (\"^1.2\")")
	flags.StringVar(&o.path, "git-path", "", "for a Git SOURCE: the directory in the repository to render (default: //path in SOURCE, else the root)")
	flags.StringVar(&o.sshKey, "git-ssh-key", "", "for an ssh:// SOURCE: a private key file (default: the keys of the SSH agent at SSH_AUTH_SOCK)")
	flags.StringVar(&o.knownHosts, "git-known-hosts", "", "for an ssh:// SOURCE: the known_hosts file that holds the host's key (default: $SSH_KNOWN_HOSTS, else ~/.ssh/known_hosts)")
	flags.StringVar(&o.caFile, "git-ca-file", "", "for an https:// SOURCE: a PEM bundle of CAs to trust besides the system's")
	flags.StringArrayVar(&o.verifyKeys, "git-verify-key", nil, "for a Git SOURCE: verify the commit's signature with this key file: OpenPGP (*.asc, gpg --export --armor) or SSH (*.sshpub, authorized_keys lines); repeat to trust several")
	flags.StringVar(&o.verifyMode, "git-verify-mode", string(git.VerifyHEAD), "with --git-verify-key: HEAD (the commit), Tag (the annotated tag) or TagAndHEAD")
	flags.BoolVar(&o.submodules, "git-recurse-submodules", false, "for a Git SOURCE: fetch the submodules the commit records")
}

// Takes reports whether source names a Git repository: an https://,
// http:// or ssh:// URL, or user@host:path. A chart of --repo is a name.
func (o *GitOptions) Takes(source, chartRepo string) bool {
	if chartRepo != "" {
		return false
	}
	return strings.HasPrefix(source, "https://") || strings.HasPrefix(source, "http://") ||
		strings.HasPrefix(source, "ssh://") || isSCP(source)
}

// Fetch checks out source and returns what to render: the directory,
// the checkout its charts' file:// dependencies stay inside, what to
// record as the release's source, and a function that removes the
// checkout. It tells stderr the commit and what verified it.
func (o *GitOptions) Fetch(ctx context.Context, source string, stderr io.Writer) (Local, error) {
	req, dirPath, err := o.request(source)
	if err != nil {
		return Local{}, err
	}
	tmp, err := os.MkdirTemp("", "wavekit-git-")
	if err != nil {
		return Local{}, err
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	tree, err := o.get(ctx, tmp, req)
	if err != nil {
		cleanup()
		return Local{}, err
	}
	fmt.Fprintf(stderr, "git: %s at %s\n", req.URL, tree.Revision)
	if tree.Verified != "" {
		fmt.Fprintf(stderr, "verified: %s\n", tree.Verified)
	}
	dir := filepath.Join(tree.Dir, filepath.FromSlash(dirPath))
	if info, statErr := os.Stat(dir); statErr != nil || !info.IsDir() {
		cleanup()
		return Local{}, fmt.Errorf("%s: no directory %s at %s", req.URL, dirPath, tree.Revision)
	}
	recorded := fmt.Sprintf("%s//%s@%s", req.URL, dirPath, tree.Revision)
	return Local{Dir: dir, Root: tree.Dir, RootIs: "the checkout of the Git SOURCE", Recorded: recorded, Cleanup: cleanup}, nil
}

// get fetches req into a cache in dir. A --git-ref that names no branch is
// looked for among the tags.
func (o *GitOptions) get(ctx context.Context, dir string, req git.Request) (git.Tree, error) {
	cache, err := fetch.NewCache(dir, fetch.DefaultMaxSize)
	if err != nil {
		return git.Tree{}, err
	}
	src := git.New(cache)
	tree, err := src.Get(ctx, req)
	var notFound *git.RefNotFoundError
	if errors.As(err, &notFound) && req.Ref.Branch != "" && req.Ref.Commit == "" {
		req.Ref = git.Ref{Tag: req.Ref.Branch}
		if tree, tagErr := src.Get(ctx, req); tagErr == nil || !errors.As(tagErr, &notFound) {
			return tree, tagErr
		}
		return git.Tree{}, fmt.Errorf("%s: no branch or tag %s (branches: %s; tags: %s)", req.URL, req.Ref.Tag, strings.Join(first(notFound.Branches, 5), ", "), strings.Join(first(notFound.Tags, 5), ", "))
	}
	return tree, err
}

func first(names []string, n int) []string {
	if len(names) > n {
		return append(names[:n:n], "…")
	}
	return names
}

// request reads SOURCE and the flags into a request, and the directory to
// render inside the repository.
func (o *GitOptions) request(source string) (git.Request, string, error) {
	repo, dirPath, ref, err := splitGitSource(source)
	if err != nil {
		return git.Request{}, "", err
	}
	if o.path != "" {
		dirPath = o.path
	}
	if o.ref != "" {
		ref = o.ref
	}
	req := git.Request{URL: repo, Ref: gitRefOf(ref), Checkout: git.Checkout{Submodules: o.submodules}}
	if o.semver != "" {
		req.Ref = git.Ref{SemVer: o.semver}
	}
	if req.Auth, err = o.auth(repo); err != nil {
		return git.Request{}, "", err
	}
	if len(o.verifyKeys) > 0 {
		keys, err := readFiles("--git-verify-key", o.verifyKeys...)
		if err != nil {
			return git.Request{}, "", err
		}
		ring, err := git.NewKeyRing("--git-verify-key", keys)
		if err != nil {
			return git.Request{}, "", err
		}
		req.Verify = &git.Verification{Mode: git.VerifyMode(o.verifyMode), Keys: ring}
	}
	return req, strings.Trim(path.Clean("/"+dirPath), "/"), nil
}

// splitGitSource reads repo//path?ref=REF; user@host:path becomes
// ssh://user@host/path.
func splitGitSource(source string) (repo, dirPath, ref string, err error) {
	if isSCP(source) {
		source = giturl.Normalize(source)
	}
	u, err := url.Parse(source)
	if err != nil {
		return "", "", "", fmt.Errorf("SOURCE %s is not a URL: %w", source, err)
	}
	ref = u.Query().Get("ref")
	u.RawQuery = ""
	if before, after, ok := strings.Cut(u.Path, "//"); ok {
		u.Path, dirPath = before, after
	}
	return u.String(), dirPath, ref, nil
}

// isSCP reports whether source is user@host:path: the CLI takes the scp-
// like form with a user only, so that no chart or path is taken for one.
func isSCP(source string) bool {
	scp, ok := giturl.ParseSCP(source)
	return ok && scp.User != ""
}

// gitRefOf reads a --git-ref: a commit's SHA-1, a full ref name, or a
// branch (then a tag) name.
func gitRefOf(ref string) git.Ref {
	switch {
	case ref == "":
		return git.Ref{}
	case regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(ref):
		return git.Ref{Commit: ref}
	case strings.HasPrefix(ref, "refs/"):
		return git.Ref{Name: ref}
	}
	return git.Ref{Branch: ref}
}

// auth reads the credentials for repo: from the environment over HTTP(S);
// a key file or the agent, and known_hosts, over SSH.
func (o *GitOptions) auth(repo string) (*git.Auth, error) {
	a := &git.Auth{Username: os.Getenv(envGitUsername), Password: os.Getenv(envGitPassword), BearerToken: os.Getenv(envGitBearerToken)}
	if o.caFile != "" {
		ca, err := os.ReadFile(o.caFile)
		if err != nil {
			return nil, fmt.Errorf("--git-ca-file: %w", err)
		}
		a.CA = ca
	}
	if !strings.HasPrefix(repo, "ssh://") {
		return a, nil
	}
	a.Username, a.Password, a.BearerToken = "", "", ""
	known := o.knownHosts
	if known == "" {
		known = os.Getenv("SSH_KNOWN_HOSTS")
	}
	if known == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("finding ~/.ssh/known_hosts: %w (give --git-known-hosts)", err)
		}
		known = filepath.Join(home, ".ssh", "known_hosts")
	}
	hosts, err := os.ReadFile(known)
	if err != nil {
		return nil, fmt.Errorf("known_hosts %s: %w (give --git-known-hosts: a host key is never accepted blindly)", known, err)
	}
	a.KnownHosts = hosts
	if o.sshKey == "" {
		a.SSHAgent = true
		return a, nil
	}
	if a.SSHKey, err = os.ReadFile(o.sshKey); err != nil {
		return nil, fmt.Errorf("--git-ssh-key: %w", err)
	}
	return a, nil
}

// ReleaseName is the release name a Git SOURCE gets without --name: the
// base of its path in the repository (in SOURCE or --git-path), else the
// repository's name.
func (o *GitOptions) ReleaseName(source string) string {
	flagPath := o.path
	repo, dirPath, _, err := splitGitSource(source)
	if flagPath != "" {
		dirPath = flagPath
	}
	if err == nil && strings.Trim(dirPath, "/") != "" {
		return path.Base(strings.Trim(dirPath, "/"))
	}
	return strings.TrimSuffix(path.Base(repo), ".git")
}
