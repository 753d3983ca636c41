package operator

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"sync"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/fetch"
	"github.com/wavekit-dev/wavekit/pkg/fetch/dependency"
	"github.com/wavekit-dev/wavekit/pkg/fetch/verify"
	"github.com/wavekit-dev/wavekit/pkg/generator/helm"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// RepositoryLabel (under the operator name, with the value "true") marks
// the Secrets of a namespace that describe a chart repository for the
// dependencies of its Components' charts: its url (a dependency whose
// repository is that URL or under it uses the Secret), a name for @name
// and alias:name, and its credentials.
const RepositoryLabel = "chart-repository"

// chartDependencies brings the dependencies of the charts the resolver
// renders (a helm.DependencyResolver): with the access of the render's
// source, a Component's or a definition's. It is made before the resolver
// (served sources are loaded first) and given it once it exists.
type chartDependencies struct {
	r *resolver
}

var _ helm.DependencyResolver = (*chartDependencies)(nil)

// ResolveDependencies brings what the render needs and reports the
// versions used (status.source.dependencies).
func (d *chartDependencies) ResolveDependencies(ctx context.Context, req helm.DependencyRequest) (*chart.Chart, error) {
	res, err := d.r.resolveDependencies(ctx, req.Chart, req.Dir, req.Root, req.Values)
	if err != nil {
		return nil, err
	}
	manifests.ReportDependencies(ctx, dependencyInfos(res.Dependencies))
	return res.Chart, nil
}

// resolveDependencies resolves the dependencies of a render of ch with
// the access of the render in ctx.
func (r *resolver) resolveDependencies(ctx context.Context, ch *chart.Chart, dir, root string, values map[string]any) (dependency.Result, error) {
	access, err := r.dependencyAccess(ctx)
	if err != nil {
		return dependency.Result{}, err
	}
	res, err := r.deps.Resolve(ctx, dependency.Request{Chart: ch, Dir: dir, Root: root, Values: values, Access: access.Access})
	if err != nil {
		return dependency.Result{}, access.explain(dependencyError(err))
	}
	return res, nil
}

// dependencyInputs adds to sum, for render-once's inputs, the versions
// and digests the dependencies of gen's chart resolve to, when it misses
// some: a new version inside a range renders again, an unchanged one
// never.
func (r *resolver) dependencyInputs(ctx context.Context, sum hash.Hash, reader client.Reader, c *v1alpha1.Component, gen manifests.Generator, reads []valuesRead) error {
	loaded, ok := gen.(rooted)
	if !ok {
		return nil
	}
	g, ok := loaded.Generator.(*helm.Generator)
	if !ok || !dependency.Missing(g.Chart()) {
		return nil
	}
	vals, err := mergedValues(ctx, reader, c, reads)
	if err != nil {
		return err
	}
	res, err := r.resolveDependencies(ctx, g.Chart(), loaded.chartDir(), loaded.root, vals)
	if err != nil {
		return err
	}
	for _, d := range res.Dependencies {
		fmt.Fprintf(sum, "dependency %s %s %s %s\x00", d.Path, d.Repository, d.Version, d.Digest)
	}
	return nil
}

// chartDir is the directory of the chart a rooted generator renders.
func (g rooted) chartDir() string {
	if g.dir != "" {
		return g.dir
	}
	return g.root
}

// dependencyInfos is what status.source.dependencies says of rs.
func dependencyInfos(rs []dependency.Resolved) []manifests.DependencyInfo {
	out := make([]manifests.DependencyInfo, 0, len(rs))
	for _, d := range rs {
		info := manifests.DependencyInfo{Name: d.Path, Repository: d.Repository, Version: d.Version, Digest: d.Digest, Verified: d.Verified}
		if last := d.Path[strings.LastIndex(d.Path, "/")+1:]; last != d.Name {
			info.Chart = d.Name
		}
		out = append(out, info)
	}
	return out
}

// dependencyError makes a failed resolution the Component's: a refusal
// of the allow-list and a failed verification as such, what may pass
// retried, the rest (a lock out of sync, a version no release matches, a
// path that leaves the source…) the input's, which only a change fixes.
func dependencyError(err error) error {
	var (
		refusal  *manifests.RefusalError
		verified *manifests.VerificationError
	)
	switch {
	case errors.As(err, &refusal):
		return err
	case errors.As(err, &verified):
		return &manifests.VerificationError{Err: err}
	}
	return fetchError(err)
}

// renderAccess is how one render reaches the repositories of its chart's
// dependencies.
type renderAccess struct {
	dependency.Access
	namespace string

	mu sync.Mutex
	// forbidden is why the repository Secrets could not be listed, if
	// they could not: the render went on without their credentials.
	forbidden error
}

// dependencyAccess is the access of the render in ctx: a definition's
// pinned source reads the Secrets of the definition's namespace as the
// operator; a Component's, those of its namespace as its identity.
func (r *resolver) dependencyAccess(ctx context.Context) (*renderAccess, error) {
	if pin, ok := ctx.Value(pinnedKey{}).(PinnedSource); ok {
		return r.accessFor(ctx, definitionComponent(pin.Definition, pin.Source), r.readers.own, true), nil
	}
	c, reader, err := r.componentAndReader(ctx)
	if err != nil {
		return nil, err
	}
	return r.accessFor(ctx, c, reader, false), nil
}

// accessFor is the access of c's render: c's namespace's repository
// Secrets read with reader, the allow-lists (the operator's only for a
// definition), c's verification keys, and its source's look age.
func (r *resolver) accessFor(ctx context.Context, c *v1alpha1.Component, reader client.Reader, definition bool) *renderAccess {
	a := &renderAccess{namespace: c.Namespace}
	verifySecret := ""
	if spec := c.Spec.ChartDependencies; spec != nil && spec.Verify != nil {
		verifySecret = spec.Verify.SecretRef.Name
		a.Verifier = r.dependencyVerifier(reader, c)
	}
	account := c.Spec.ServiceAccountName
	if account == "" {
		account = r.readers.defaultSA
	}
	a.Identity = strings.Join([]string{c.Namespace, account, verifySecret, strconv.FormatInt(c.Generation, 10)}, "/")
	a.MaxAge = requestMaxAge(c, r.name, r.lookAge(c), time.Now())
	a.NamesFrom = fmt.Sprintf("the Secrets of namespace %s labelled %s/%s=true", c.Namespace, r.name, RepositoryLabel)
	a.Repositories = func(ctx context.Context) (dependency.Repositories, error) { return r.repositorySecrets(ctx, reader, a) }
	a.Allow = func(repository, name string) error { return r.allowDependency(ctx, c, repository, name, definition) }
	return a
}

// lookAge is how long c's source is used before its repository is asked
// again: its Git interval, else its requeue interval.
func (r *resolver) lookAge(c *v1alpha1.Component) time.Duration {
	if c.Spec.Git != nil {
		return v1alpha1.GitLookAge(v1alpha1.GitInterval(c.Spec.Git))
	}
	if d := c.GetRequeueInterval(); d > 0 {
		return d
	}
	return r.requeue
}

// repositorySecrets lists the repository Secrets of a's namespace with
// reader. An identity that may not list Secrets goes on without them:
// public repositories need none, and a repository that asks for
// credentials then says why it got none (explain).
func (r *resolver) repositorySecrets(ctx context.Context, reader client.Reader, a *renderAccess) (dependency.Repositories, error) {
	list := &corev1.SecretList{}
	err := reader.List(ctx, list, client.InNamespace(a.namespace), client.MatchingLabels{r.name + "/" + RepositoryLabel: "true"})
	switch {
	case apierrors.IsForbidden(err):
		a.mu.Lock()
		a.forbidden = err
		a.mu.Unlock()
		return nil, nil
	case err != nil:
		return nil, readError(fmt.Errorf("listing the chart repository Secrets of namespace %s: %w", a.namespace, err))
	}
	repos := make(dependency.Repositories, 0, len(list.Items))
	for i := range list.Items {
		repo, err := repositoryOf(&list.Items[i])
		if err != nil {
			return nil, &manifests.UserError{Err: err}
		}
		repos = append(repos, repo)
	}
	return repos, nil
}

// repositoryOf reads a repository Secret: url, and optionally name,
// username and password, token, ca.crt, tls.crt and tls.key, plainHTTP.
// Its messages name keys, never values.
func repositoryOf(s *corev1.Secret) (dependency.Repository, error) {
	data := s.Data
	repo := dependency.Repository{Name: string(data["name"]), URL: string(data["url"])}
	if repo.URL == "" {
		return repo, fmt.Errorf("chart repository Secret %s has no key url (the repository's URL)", s.Name)
	}
	creds := &fetch.Credentials{Username: string(data["username"]), Password: string(data["password"]), Token: string(data["token"]),
		CA: data["ca.crt"], CertPEM: data["tls.crt"], KeyPEM: data["tls.key"]}
	if (creds.Username == "") != (creds.Password == "") {
		return repo, fmt.Errorf("chart repository Secret %s needs both username and password, or neither", s.Name)
	}
	if (len(creds.CertPEM) == 0) != (len(creds.KeyPEM) == 0) {
		return repo, fmt.Errorf("chart repository Secret %s needs both tls.crt and tls.key, or neither", s.Name)
	}
	repo.Credentials = creds
	if plain, ok := data["plainHTTP"]; ok {
		b, err := strconv.ParseBool(string(plain))
		if err != nil {
			return repo, fmt.Errorf("chart repository Secret %s: plainHTTP: want true or false", s.Name)
		}
		repo.PlainHTTP = b
	}
	return repo, nil
}

// explain adds to a repository's refusal of anonymous requests that the
// repository Secrets could not be listed, when they could not.
func (a *renderAccess) explain(err error) error {
	a.mu.Lock()
	forbidden := a.forbidden
	a.mu.Unlock()
	var auth *fetch.AuthError
	if forbidden == nil || !errors.As(err, &auth) || !auth.Anonymous {
		return err
	}
	return fmt.Errorf("%w (the Component's identity may not list the chart repository Secrets of namespace %s: %v)", err, a.namespace, forbidden)
}

// allowDependency checks a dependency against the allow-lists (the
// operator's, and unless the source is a definition's, the namespace's)
// as a chart of spec.chart is checked: by its repository's URL, or for an
// OCI chart by its reference (oci://host/path/name).
func (r *resolver) allowDependency(ctx context.Context, c *v1alpha1.Component, repository, name string, definition bool) error {
	if r.policy == nil {
		return nil
	}
	_, url := chartURL(&v1alpha1.ChartSource{Repository: repository, Name: name})
	field := "the chart dependency " + name + " from"
	if definition {
		global := r.policy.global
		return refusal(global.Check(url), field, url, "--allowed-sources of the operator", global)
	}
	if applies, err := r.policy.applies(ctx, c.Namespace); err != nil || !applies {
		return err
	}
	return r.policy.check(ctx, c, field, url)
}

// dependencyVerifier returns what verifies c's dependencies: the keys of
// spec.chartDependencies.verify's Secret, read as c's identity when a
// dependency is fetched, of the kind its repository needs.
func (r *resolver) dependencyVerifier(reader client.Reader, c *v1alpha1.Component) func(context.Context, string) (fetch.Verifier, error) {
	return func(ctx context.Context, url string) (fetch.Verifier, error) {
		const field = "spec.chartDependencies.verify.secretRef"
		name := c.Spec.ChartDependencies.Verify.SecretRef.Name
		data, err := readSecret(ctx, reader, c.Namespace, field, name, func(err error) error {
			return &manifests.VerificationError{Err: err}
		})
		if err != nil {
			return nil, err
		}
		provider := verify.Helm
		if strings.HasPrefix(url, "oci://") {
			provider = verify.Cosign
		}
		v, err := verify.New(provider, name, data, r.verified)
		if err != nil {
			return nil, &manifests.VerificationError{Err: fmt.Errorf("spec.chartDependencies.verify: %s: %w", url, err)}
		}
		return v, nil
	}
}
