package operator

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/allowlist"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/fetch/git/giturl"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ReasonSourceNotAllowed is the Ready reason of a Component whose source
// URL the operator's --allowed-sources or its Namespace's allowed-sources
// annotation does not allow. No request was sent to the source.
const ReasonSourceNotAllowed = "SourceNotAllowed"

// AllowedSourcesAnnotation (under the operator name) on a Namespace
// narrows the sources its Components may use: comma- or newline-separated
// patterns, evaluated as --allowed-sources is, and in addition to it.
const AllowedSourcesAnnotation = "allowed-sources"

// sourcePolicy decides whether a Component may use its source, before any
// request is sent to it.
type sourcePolicy struct {
	global     *allowlist.List
	namespaces client.Reader // an informer cache: no request per check
	annotation string
}

// newSourcePolicy parses opts.AllowedSources; namespaces reads Namespaces'
// metadata from an informer cache.
func newSourcePolicy(opts Options, namespaces client.Reader) (*sourcePolicy, error) {
	global, err := allowlist.Parse(opts.AllowedSources)
	if err != nil {
		return nil, fmt.Errorf("--allowed-sources: %w", err)
	}
	return &sourcePolicy{global: global, namespaces: namespaces, annotation: opts.Name + "/" + AllowedSourcesAnnotation}, nil
}

// CheckAllowedSources parses --allowed-sources as Setup does, so that the
// operator refuses bad patterns before it connects.
func CheckAllowedSources(patterns []string) error {
	if _, err := allowlist.Parse(patterns); err != nil {
		return fmt.Errorf("--allowed-sources: %w", err)
	}
	return nil
}

// check refuses url, what spec field it comes from, when the operator's
// list or the Namespace's annotation does not allow it.
func (p *sourcePolicy) check(ctx context.Context, c *v1alpha1.Component, field, url string) error {
	shown := giturl.Redacted(url)
	if err := refusal(p.global.Check(url), field, shown, "--allowed-sources of the operator", p.global); err != nil {
		return err
	}
	local, present, err := p.namespaceList(ctx, c.Namespace)
	if err != nil || !present {
		return err
	}
	where := fmt.Sprintf("the annotation %s of Namespace %s", p.annotation, c.Namespace)
	if local.Empty() {
		return &manifests.RefusalError{Reason: ReasonSourceNotAllowed, Err: fmt.Errorf("%s %s is not an allowed source: %s lists no pattern, so it allows no source", field, shown, where)}
	}
	return refusal(local.Check(url), field, shown, where, local)
}

// refusal is the error of a decision that refuses url (as a message
// shows it).
func refusal(d allowlist.Decision, field, url, where string, list *allowlist.List) error {
	if d.Allowed {
		return nil
	}
	why := fmt.Sprintf("no pattern of %s allows it (patterns: %s)", where, list)
	if d.Pattern != "" {
		why = fmt.Sprintf("refused by the pattern %q of %s", d.Pattern, where)
	}
	return &manifests.RefusalError{Reason: ReasonSourceNotAllowed, Err: fmt.Errorf("%s %s is not an allowed source: %s", field, url, why)}
}

// namespaceList reads the allowed-sources annotation of a Namespace, from
// a cache of Namespaces' metadata; present is false without one.
func (p *sourcePolicy) namespaceList(ctx context.Context, namespace string) (list *allowlist.List, present bool, err error) {
	ns := &metav1.PartialObjectMetadata{}
	ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
	if err := p.namespaces.Get(ctx, types.NamespacedName{Name: namespace}, ns); err != nil {
		return nil, false, component.Retriable(fmt.Errorf("reading Namespace %s for its %s annotation: %w", namespace, p.annotation, err), 0)
	}
	value, ok := ns.GetAnnotations()[p.annotation]
	if !ok {
		return nil, false, nil
	}
	list, err = allowlist.ParseList(value)
	if err != nil {
		return nil, true, &manifests.RefusalError{Reason: ReasonSourceNotAllowed, Err: fmt.Errorf("the annotation %s of Namespace %s: %w", p.annotation, namespace, err)}
	}
	return list, true, nil
}

// sourceAllowed checks the URL of c's spec.chart, spec.sourceRef or
// spec.git, and of its valuesFrom's repositories, against the policy. A
// served source (spec.source) is the operator's own. The URL of a Flux
// source is looked up only when a list applies to c.
func (r *resolver) sourceAllowed(ctx context.Context, c *v1alpha1.Component) error {
	if r.policy == nil || !hasURLSource(c, r.localArtifact != "") {
		return nil
	}
	if applies, err := r.policy.applies(ctx, c.Namespace); err != nil || !applies {
		return err
	}
	for i, ref := range c.Spec.ValuesFrom {
		if ref.Kind == gitValuesKind && ref.Git != nil {
			if err := r.policy.check(ctx, c, fmt.Sprintf("spec.valuesFrom[%d].git.url", i), ref.Git.URL); err != nil {
				return err
			}
		}
	}
	switch {
	case c.Spec.Chart != nil:
		field, url := chartURL(c.Spec.Chart)
		return r.policy.check(ctx, c, field, url)
	case c.Spec.Git != nil:
		return r.policy.check(ctx, c, "spec.git.url", c.Spec.Git.URL)
	case c.Spec.SourceRef == nil || r.localArtifact != "":
		return nil
	}
	field, url, err := r.flux.originURL(ctx, c)
	if err != nil || url == "" {
		return err
	}
	return r.policy.check(ctx, c, field, url)
}

// hasURLSource reports whether c reads anything from a URL: a chart, a Git
// repository, a Flux source (unless a local artifact stands for it).
func hasURLSource(c *v1alpha1.Component, localArtifact bool) bool {
	if c.Spec.Chart != nil || c.Spec.Git != nil || (c.Spec.SourceRef != nil && !localArtifact) {
		return true
	}
	return slices.ContainsFunc(c.Spec.ValuesFrom, func(ref v1alpha1.ValuesReference) bool { return ref.Kind == gitValuesKind })
}

// applies tells whether the operator's list or the namespace's annotation
// limits the sources of a Component of namespace.
func (p *sourcePolicy) applies(ctx context.Context, namespace string) (bool, error) {
	if !p.global.Empty() {
		return true, nil
	}
	_, present, err := p.namespaceList(ctx, namespace)
	return present, err
}

// chartURL is what a chart is matched by: the repository of an HTTP chart,
// the chart's own reference (repository/name) of an OCI chart.
func chartURL(chart *v1alpha1.ChartSource) (field, url string) {
	if strings.HasPrefix(chart.Repository, "oci://") {
		return "spec.chart", strings.TrimSuffix(chart.Repository, "/") + "/" + chart.Name
	}
	return "spec.chart.repository", chart.Repository
}
