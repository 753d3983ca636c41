package gitinputs

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git"
)

// Source reads Git inputs; one serves every set of an operator.
type Source struct {
	git     *git.Source
	secrets client.Reader
	allow   func(ctx context.Context, namespace, url string) error
	now     func() time.Time
}

// Option configures a Source.
type Option func(*Source)

// WithAllow checks each repository URL (a submodule's too), for a set of
// namespace, before anything is fetched from it.
func WithAllow(allow func(ctx context.Context, namespace, url string) error) Option {
	return func(s *Source) { s.allow = allow }
}

// New returns a Source that fetches with src and reads the sets'
// credentials Secrets with secrets.
func New(src *git.Source, secrets client.Reader, opts ...Option) *Source {
	s := &Source{git: src, secrets: secrets, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Read returns the inputs of source.GitDirectories or source.GitFiles.
func (s *Source) Read(ctx context.Context, namespace string, source v1alpha1.InputSource, opts inputs.ReadOptions) ([]inputs.Input, error) {
	switch {
	case source.GitDirectories != nil:
		spec := source.GitDirectories
		tree, err := s.tree(ctx, namespace, "gitDirectories", spec.GitInputRepository, opts)
		if err != nil {
			return nil, err
		}
		out, err := directories(tree, spec.Paths, spec.Exclude)
		if err != nil {
			return nil, fmt.Errorf("gitDirectories: %w", err)
		}
		return out, nil
	case source.GitFiles != nil:
		spec := source.GitFiles
		tree, err := s.tree(ctx, namespace, "gitFiles", spec.GitInputRepository, opts)
		if err != nil {
			return nil, err
		}
		out, err := files(tree, spec.Paths)
		if err != nil {
			return nil, fmt.Errorf("gitFiles: %w", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no gitDirectories or gitFiles to read")
}

// tree brings the commit repo names, for a set of namespace.
func (s *Source) tree(ctx context.Context, namespace, field string, repo v1alpha1.GitInputRepository, opts inputs.ReadOptions) (git.Tree, error) {
	allow := func(url string) error {
		if s.allow == nil {
			return nil
		}
		return s.allow(ctx, namespace, url)
	}
	if err := allow(repo.URL); err != nil {
		return git.Tree{}, fmt.Errorf("%s: %w", field, err)
	}
	req := git.Request{URL: repo.URL, Ref: refOf(repo.Ref), Identity: identity(namespace, repo),
		MaxAge: maxAge(opts, s.now()), Consumer: "ComponentSets of " + namespace, Allow: allow,
		Credentials: func(ctx context.Context) (*git.Auth, *git.Proxy, error) {
			auth, err := s.credentials(ctx, namespace, field, repo)
			return auth, nil, err
		}}
	tree, err := s.git.Get(ctx, req)
	if err != nil {
		return git.Tree{}, fmt.Errorf("%s %s: %w", field, repo.URL, err)
	}
	return tree, nil
}

// maxAge is how old a look at the repository may be for a read with opts:
// the interval, or, for a read asked since a time, no older than that.
func maxAge(opts inputs.ReadOptions, now time.Time) time.Duration {
	age := opts.Interval
	if !opts.Since.IsZero() {
		age = min(age, now.Sub(opts.Since))
	}
	return max(age, 0)
}

// identity is who reaches the repository: anonymous for every set, else
// the set's namespace and Secret (a set never rides on another's look).
func identity(namespace string, repo v1alpha1.GitInputRepository) string {
	if repo.SecretRef == nil {
		return ""
	}
	return "sets/" + namespace + "/" + repo.SecretRef.Name
}

// credentials reads repo's Secret in namespace.
func (s *Source) credentials(ctx context.Context, namespace, field string, repo v1alpha1.GitInputRepository) (*git.Auth, error) {
	if repo.SecretRef == nil {
		return nil, nil
	}
	secret := &corev1.Secret{}
	if err := s.secrets.Get(ctx, client.ObjectKey{Namespace: namespace, Name: repo.SecretRef.Name}, secret); err != nil {
		return nil, fmt.Errorf("%s.secretRef: reading Secret %s/%s: %w", field, namespace, repo.SecretRef.Name, err)
	}
	auth := git.AuthFromSecret(secret.Data)
	if strings.HasPrefix(repo.URL, "ssh://") && len(auth.SSHKey) == 0 {
		return nil, fmt.Errorf("%s.secretRef: Secret %s/%s has no key identity (an SSH private key) for %s", field, namespace, repo.SecretRef.Name, repo.URL)
	}
	return auth, nil
}

func refOf(ref *v1alpha1.GitRef) git.Ref {
	if ref == nil {
		return git.Ref{}
	}
	return git.Ref{Branch: ref.Branch, Tag: ref.Tag, SemVer: ref.SemVer, Name: ref.Name, Commit: ref.Commit}
}
