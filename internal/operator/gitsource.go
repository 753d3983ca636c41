package operator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// maxValuesFileBytes bounds a values file read from a repository.
const maxValuesFileBytes = 4 << 20

// Ready reasons of a Component whose Git source is refused for what it is:
// only a new commit or a change fixes it, so the Component is Stalled and
// looks at the repository again at its interval (spec.git.interval), when a
// new commit may be there, rather than at spec.intervals.retry.
const (
	// ReasonRefNotFound: the repository has no branch, tag, tag in the
	// semver range or ref that spec.git.ref names.
	ReasonRefNotFound = "RefNotFound"
	// ReasonPathNotFound: the commit has nothing at spec.git.path, or at
	// the path of a valuesFrom file that is not optional.
	ReasonPathNotFound = "PathNotFound"
	// ReasonSourceTooLarge: the commit's pack, an object of it or its
	// checked-out tree is over --git-max-size or --git-max-object-size.
	ReasonSourceTooLarge = "SourceTooLarge"
	// ReasonHostKeyMismatch: the SSH server's host key is not one the
	// Secret's known_hosts holds for it; nothing was sent.
	ReasonHostKeyMismatch = "HostKeyMismatch"
)

// gitSource renders spec.git: the directory spec.git.path of the commit its
// ref names.
func (r *resolver) gitSource(ctx context.Context, c *v1alpha1.Component, reader client.Reader) (manifests.Generator, error) {
	spec := c.Spec.Git
	tree, err := r.gitTree(ctx, c, reader, "spec.git", spec)
	if err != nil {
		return nil, err
	}
	dir, err := treePath(tree, spec.Path, "spec.git.path", true)
	if err != nil {
		return nil, recheckGit(c, err)
	}
	manifests.ReportSource(ctx, manifests.SourceInfo{URL: spec.URL, Revision: tree.Revision, Digest: tree.Digest, Verified: tree.Verified})
	// The tree's identity is its commit, or the content of its sparse
	// paths: a commit that changes nothing there renders nothing.
	identity := fmt.Sprintf("git %s %s path %s", spec.URL, tree.Identity, spec.Path)
	return r.load("git\x00"+tree.Dir+"\x00"+dir, identity, dir, tree.Dir)
}

// gitValues reads the values file of a valuesFrom entry of kind Git.
func (r *resolver) gitValues(ctx context.Context, c *v1alpha1.Component, reader client.Reader, i int, ref v1alpha1.ValuesReference) (string, bool, error) {
	field := fmt.Sprintf("spec.valuesFrom[%d].git", i)
	tree, err := r.gitTree(ctx, c, reader, field, ref.Git)
	if err != nil {
		return "", false, err
	}
	file, err := treePath(tree, ref.Git.Path, field+".path", false)
	var missing *missingPathError
	switch {
	case errors.As(err, &missing) && ref.Optional:
		return "", false, nil
	case err != nil:
		return "", false, recheckGit(c, err)
	}
	f, err := os.Open(file)
	if err != nil {
		return "", false, fmt.Errorf("%s.path %s: %w", field, ref.Git.Path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxValuesFileBytes+1))
	if err != nil {
		return "", false, fmt.Errorf("%s.path %s: %w", field, ref.Git.Path, err)
	}
	if len(data) > maxValuesFileBytes {
		return "", false, recheckGit(c, &manifests.RefusalError{Reason: ReasonSourceTooLarge,
			Err: fmt.Errorf("%s.path %s at %s is larger than %d MiB", field, ref.Git.Path, tree.Revision, maxValuesFileBytes>>20)})
	}
	return string(data), true, nil
}

// gitTree brings the tree of spec's commit: the repository looked at again
// at each pass (its interval; sooner for a reconcile request) unless
// another Component looked since, its credentials read only when it is
// reached, its keys once per generation and interval.
func (r *resolver) gitTree(ctx context.Context, c *v1alpha1.Component, reader client.Reader, field string, spec *v1alpha1.GitSource) (git.Tree, error) {
	interval := v1alpha1.GitInterval(spec)
	req := git.Request{
		URL: spec.URL, Ref: gitRef(spec.Ref),
		Identity: r.gitIdentity(c, spec),
		MaxAge:   requestMaxAge(c, r.name, v1alpha1.GitLookAge(interval), time.Now()),
		Timeout:  durationOf(spec.Timeout),
		Checkout: git.Checkout{SparsePaths: spec.SparseCheckout, Ignore: spec.Ignore, Submodules: spec.RecurseSubmodules},
		Consumer: types.NamespacedName{Namespace: c.Namespace, Name: c.Name}.String(),
		Credentials: func(ctx context.Context) (*git.Auth, *git.Proxy, error) {
			return gitCredentials(ctx, reader, c, field, spec)
		},
		Allow: func(url string) error { return r.allowGit(ctx, c, field+" (a submodule)", url) },
	}
	if spec.Verify != nil {
		keys, err := r.gitKeys.get(ctx, reader, c, field+".verify", spec.Verify, interval)
		if err != nil {
			return git.Tree{}, err
		}
		req.Verify = &git.Verification{Mode: git.VerifyMode(spec.Verify.GetMode()), Keys: keys}
	}
	tree, err := r.git.Get(ctx, req)
	if err != nil {
		return git.Tree{}, gitError(c, field, err)
	}
	return tree, nil
}

// gitIdentity names who reaches a repository with which Secrets: the
// Component's namespace, the service account it reads as, and its Secrets'
// names. Components of one identity share their looks at the repository;
// one of another identity never rides on them (it reads its own Secret and
// is refused if it may not).
func (r *resolver) gitIdentity(c *v1alpha1.Component, spec *v1alpha1.GitSource) string {
	if spec.SecretRef == nil && spec.ProxySecretRef == nil {
		return "" // anonymous: the same for every namespace
	}
	account := c.Spec.ServiceAccountName
	if account == "" {
		account = r.readers.defaultSA
	}
	name := func(ref *v1alpha1.LocalObjectReference) string {
		if ref == nil {
			return ""
		}
		return ref.Name
	}
	return strings.Join([]string{c.Namespace, account, name(spec.SecretRef), name(spec.ProxySecretRef)}, "/")
}

func gitRef(ref *v1alpha1.GitRef) git.Ref {
	if ref == nil {
		return git.Ref{}
	}
	return git.Ref{Branch: ref.Branch, Tag: ref.Tag, SemVer: ref.SemVer, Name: ref.Name, Commit: ref.Commit}
}

func durationOf(d *metav1.Duration) time.Duration {
	if d == nil {
		return 0
	}
	return d.Duration
}

// missingPathError says a path is not in a tree.
type missingPathError struct{ error }

func (e *missingPathError) Unwrap() error { return e.error }

// treePath is path inside tree, which must exist (a directory, or a file
// when dir is false) and stay inside it.
func treePath(tree git.Tree, path, field string, dir bool) (string, error) {
	full := filepath.Join(tree.Dir, filepath.FromSlash(path))
	rel, err := filepath.Rel(tree.Dir, full)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &manifests.UserError{Err: fmt.Errorf("%s %s leaves the repository", field, path)}
	}
	info, err := os.Stat(full)
	switch {
	case err != nil:
		return "", &manifests.RefusalError{Reason: ReasonPathNotFound, Err: &missingPathError{fmt.Errorf("%s %s: no such path in %s at %s", field, path, tree.URL, tree.Revision)}}
	case dir && !info.IsDir():
		return "", &manifests.UserError{Err: fmt.Errorf("%s %s is a file in %s at %s, not a directory", field, path, tree.URL, tree.Revision)}
	case !dir && !info.Mode().IsRegular():
		return "", &manifests.UserError{Err: fmt.Errorf("%s %s is not a file in %s at %s", field, path, tree.URL, tree.Revision)}
	}
	return full, nil
}

// gitError retries what may pass and reports the rest as the Component's,
// looked at again at its interval (recheckGit): a signature as a
// verification failure, an unknown ref, a size over the bounds and a host
// key as refusals of their own reasons. A URL the allow-lists refuse
// (SourceNotAllowed) is reported as any source's.
func gitError(c *v1alpha1.Component, field string, err error) error {
	var refusal *manifests.RefusalError
	switch {
	case errors.As(err, &refusal):
		return err
	case git.IsTransient(err):
		return component.Retriable(fmt.Errorf("%s: %w", field, err), 0)
	}
	return recheckGit(c, gitRefusal(fmt.Errorf("%s: %w", field, err)))
}

// gitRefusal gives a Git source's error that only a change fixes its Ready
// reason.
func gitRefusal(err error) error {
	var (
		verify  *git.VerificationError
		ref     *git.RefNotFoundError
		size    *fetch.SizeLimitError
		hostKey *git.HostKeyError
	)
	switch {
	case errors.As(err, &verify):
		return &manifests.VerificationError{Err: err}
	case errors.As(err, &ref):
		return &manifests.RefusalError{Reason: ReasonRefNotFound, Err: err}
	case errors.As(err, &size):
		return &manifests.RefusalError{Reason: ReasonSourceTooLarge, Err: err}
	case errors.As(err, &hostKey):
		return &manifests.RefusalError{Reason: ReasonHostKeyMismatch, Err: err}
	}
	return &manifests.UserError{Err: err}
}

// recheckGit says that c looks at its repositories again at its interval
// (v1alpha1.Component.GetRequeueInterval: the shortest of its repositories',
// jittered), not at its retry interval: the same commit would fail the
// same way, and a new one is seen at the next look.
func recheckGit(c *v1alpha1.Component, err error) error {
	return &manifests.RecheckError{After: c.GetRequeueInterval(), Err: err}
}

// gitCredentials reads spec.secretRef and spec.proxySecretRef as the
// Component's identity. Key names are Flux's.
func gitCredentials(ctx context.Context, reader client.Reader, c *v1alpha1.Component, field string, spec *v1alpha1.GitSource) (*git.Auth, *git.Proxy, error) {
	var auth *git.Auth
	if spec.SecretRef != nil {
		data, err := readSecret(ctx, reader, c.Namespace, field+".secretRef", spec.SecretRef.Name, userError)
		if err != nil {
			return nil, nil, err
		}
		auth = git.AuthFromSecret(data)
		if strings.HasPrefix(spec.URL, "ssh://") && len(auth.SSHKey) == 0 {
			return nil, nil, &manifests.UserError{Err: fmt.Errorf("%s.secretRef: Secret %s has no key identity (an SSH private key) for %s", field, spec.SecretRef.Name, spec.URL)}
		}
	}
	var proxy *git.Proxy
	if spec.ProxySecretRef != nil {
		data, err := readSecret(ctx, reader, c.Namespace, field+".proxySecretRef", spec.ProxySecretRef.Name, userError)
		if err != nil {
			return nil, nil, err
		}
		proxy = &git.Proxy{URL: string(data["address"]), Username: string(data["username"]), Password: string(data["password"])}
		if proxy.URL == "" {
			return nil, nil, &manifests.UserError{Err: fmt.Errorf("%s.proxySecretRef: Secret %s has no key address", field, spec.ProxySecretRef.Name)}
		}
	}
	return auth, proxy, nil
}

// allowGit checks a repository's URL against the source policy.
func (r *resolver) allowGit(ctx context.Context, c *v1alpha1.Component, field, url string) error {
	if r.policy == nil {
		return nil
	}
	if applies, err := r.policy.applies(ctx, c.Namespace); err != nil || !applies {
		return err
	}
	return r.policy.check(ctx, c, field, url)
}
