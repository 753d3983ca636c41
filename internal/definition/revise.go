package definition

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// checkGroup refuses a group the operator may not serve.
func (p *pass) checkGroup() error {
	if err := crdgen.CheckGroup(p.r.opts.Name, p.r.opts.AllowedGroups, p.def.Spec.Group); err != nil {
		return &refusal{reason: ReasonInvalid, err: err}
	}
	return nil
}

// crd is the CRD the definition's content makes.
func (p *pass) crd() (*apiextensionsv1.CustomResourceDefinition, error) {
	crd, err := crdgen.CRD(p.r.opts.Name, p.def, p.res.schema)
	if err != nil {
		return nil, &refusal{reason: ReasonInvalid, err: fmt.Errorf("the kind's CRD would be refused: %w", err)}
	}
	return crd, nil
}

// newRevision makes a new revision when the content differs from the
// newest one's; before that, it refuses a kind that clashes with another
// CRD and a schema that breaks an instance (unless accepted). Nothing is
// written when it refuses.
func (p *pass) newRevision(ctx context.Context) error {
	newest := p.def.Status.Revision
	if newest > 0 {
		rev, err := p.revision(ctx, newest)
		if err != nil {
			return err
		}
		if rev != nil && rev.Spec.Digest == p.res.digest {
			return nil
		}
	}
	if err := p.checkClash(ctx); err != nil {
		return err
	}
	next := newest + 1
	if err := p.checkInstances(ctx, next); err != nil {
		return err
	}
	if err := p.createRevision(ctx, next); err != nil {
		return err
	}
	p.def.Status.Revision = next
	return nil
}

// revision reads revision n from the cache, or from the API server when
// the cache does not have it yet (one made a moment ago); nil when gone.
func (p *pass) revision(ctx context.Context, n int64) (*v1alpha1.ComponentDefinitionRevision, error) {
	rev := &v1alpha1.ComponentDefinitionRevision{}
	key := client.ObjectKey{Name: RevisionName(p.def.Name, n)}
	err := p.r.client.Get(ctx, key, rev)
	if apierrors.IsNotFound(err) {
		err = p.r.api.Get(ctx, key, rev)
	}
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, &transient{fmt.Errorf("reading revision %d: %w", n, err)}
	}
	return rev, nil
}

// checkClash refuses a kind whose CRD the operator did not write for this
// definition, or whose names another CRD of its group has.
func (p *pass) checkClash(ctx context.Context) error {
	var crds apiextensionsv1.CustomResourceDefinitionList
	if err := p.r.api.List(ctx, &crds); err != nil {
		return &transient{fmt.Errorf("listing CRDs to check that the kind is free: %w", err)}
	}
	if clash := crdgen.Clash(p.r.opts.Name, p.def, crds.Items); clash != "" {
		return &refusal{reason: ReasonKindClash, err: fmt.Errorf("%s", clash)}
	}
	return nil
}

// checkInstances refuses revision next when its schema would drop a field
// an existing instance sets or refuse what one says, naming them, unless
// the definition accepts that revision by number.
func (p *pass) checkInstances(ctx context.Context, next int64) error {
	if next == 1 || !p.r.kinds.Served(p.def) {
		return nil
	}
	items, err := p.r.kinds.Instances(ctx, p.def)
	if err != nil {
		return &transient{err}
	}
	checker, err := crdschema.NewChecker(p.res.schema)
	if err != nil {
		return &refusal{reason: ReasonInvalidSchema, err: err}
	}
	var broken []string
	for _, u := range items {
		spec, _ := u.Object["spec"].(map[string]any)
		if a := checker.Admit(spec); !a.Admitted() {
			broken = append(broken, fmt.Sprintf("%s/%s (%s)", u.GetNamespace(), u.GetName(), a))
		}
	}
	if len(broken) == 0 {
		return nil
	}
	slices.Sort(broken)
	key := manifests.Key(p.r.opts.Name, AnnotationAcceptBreakingRevision)
	if p.def.Annotations[key] == strconv.FormatInt(next, 10) {
		p.r.recorder.Eventf(p.def, nil, "Warning", ReasonSchemaBreaksInstances, "Revise",
			"%s", bound(fmt.Sprintf("revision %d made as %s asks, although its schema breaks %s", next, key, strings.Join(broken, "; ")), 1000))
		return nil
	}
	return &refusal{reason: ReasonSchemaBreaksInstances, err: fmt.Errorf(
		"revision %d was not made: its schema would break %d instance(s): %s; change them or the schema, or annotate the definition %s=%d to make it anyway",
		next, len(broken), strings.Join(firsts(broken, 10), "; "), key, next)}
}

// createRevision writes revision n of the content resolved.
func (p *pass) createRevision(ctx context.Context, n int64) error {
	schema, err := json.Marshal(p.res.schema)
	if err != nil {
		return fmt.Errorf("encoding the schema: %w", err)
	}
	rev := &v1alpha1.ComponentDefinitionRevision{
		ObjectMeta: metav1.ObjectMeta{Name: RevisionName(p.def.Name, n), Labels: map[string]string{
			p.r.label: p.def.Name, manifests.Key(p.r.opts.Name, "revision"): strconv.FormatInt(n, 10)}},
		Spec: v1alpha1.ComponentDefinitionRevisionSpec{
			Definition: p.def.Name, Revision: n, Source: p.res.resolved.Pinned, Resolved: p.res.resolved.Resolved,
			Schema: apiextensionsv1.JSON{Raw: schema}, Values: p.def.Spec.Values.DeepCopy(), Instances: *p.def.Spec.Instances.DeepCopy(),
			Digest: p.res.digest,
		},
	}
	if err := controllerutil.SetControllerReference(p.def, rev, p.r.client.Scheme()); err != nil {
		return err
	}
	err = p.r.client.Create(ctx, rev)
	if apierrors.IsAlreadyExists(err) {
		existing, readErr := p.revision(ctx, n)
		if readErr == nil && existing != nil && existing.Spec.Digest == p.res.digest {
			return nil // made by a pass whose status write was lost
		}
		return &transient{fmt.Errorf("revision %d exists with other content: the status lags behind; retrying", n)}
	}
	if err != nil {
		return &transient{fmt.Errorf("creating revision %d: %w", n, err)}
	}
	p.r.recorder.Eventf(p.def, nil, "Normal", "Revised", "Revise", "revision %d: %s", n, describeResolved(p.res.resolved.Resolved))
	return nil
}

func describeResolved(r v1alpha1.ResolvedSource) string {
	switch {
	case r.URL != "" && r.Revision != "":
		return r.URL + " " + r.Revision
	case r.Revision != "":
		return r.Revision + " " + r.Digest
	}
	return r.Digest
}

func firsts(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("… and %d more", len(items)-n))
}

func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
