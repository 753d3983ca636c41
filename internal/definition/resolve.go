package definition

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
	"github.com/wavekit-dev/wavekit/internal/definition/instance"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// resolution is a definition's content at a generation: its source
// resolved and pinned, and the schema made of it.
type resolution struct {
	generation int64
	requested  string
	at         time.Time

	resolved operator.Resolved
	schema   apiextensionsv1.JSONSchemaProps
	dropped  []crdschema.Dropped
	noSchema bool
	digest   string
}

// resolutions remember the last resolution of each definition, so that a
// pass for a change of its instances does not fetch its source again.
type resolutions struct {
	mu   sync.Mutex
	last map[string]*resolution
}

func newResolutions() *resolutions { return &resolutions{last: map[string]*resolution{}} }

func (rs *resolutions) get(name string) *resolution {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.last[name]
}

func (rs *resolutions) put(name string, r *resolution) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r == nil {
		delete(rs.last, name)
		return
	}
	rs.last[name] = r
}

// interval is how often def's source is looked at again.
func interval(def *v1alpha1.ComponentDefinition) time.Duration {
	if g := def.Spec.Source.Git; g != nil {
		return v1alpha1.GitInterval(g)
	}
	if d := def.Spec.Instances.Intervals.Requeue; d != nil && d.Duration > 0 {
		return d.Duration
	}
	return component.DefaultRequeueInterval
}

// resolve is def's content now: the last resolution while def and its
// request are the same and the source's interval has not passed, else
// the source resolved again.
func (r *reconciler) resolve(ctx context.Context, def *v1alpha1.ComponentDefinition) (*resolution, error) {
	requested := def.Annotations[manifests.Key(r.opts.Name, component.AnnotationReconcileRequestedAt)]
	if last := r.resolved.get(def.Name); last != nil && last.generation == def.Generation && last.requested == requested &&
		time.Since(last.at) < interval(def) {
		return last, nil
	}
	resolved, err := r.opts.Sources.Resolve(ctx, def.Name, def.Spec.Source, def.Annotations)
	if err != nil {
		return nil, err
	}
	out := &resolution{generation: def.Generation, requested: requested, at: time.Now(), resolved: resolved}
	if err := out.makeSchema(def); err != nil {
		return nil, err
	}
	if err := instance.CheckMapping(def.Spec.Values, out.schema); err != nil {
		return nil, &refusal{reason: ReasonInvalid, err: err}
	}
	if out.digest, err = contentDigest(def, out); err != nil {
		return nil, err
	}
	r.resolved.put(def.Name, out)
	return out, nil
}

// makeSchema makes the schema of an instance's spec (crdgen.SchemaOf).
func (res *resolution) makeSchema(def *v1alpha1.ComponentDefinition) error {
	schema, err := crdgen.SchemaOf(def, res.resolved.Dir)
	var invalid *crdschema.Error
	switch {
	case errors.As(err, &invalid):
		return &refusal{reason: ReasonInvalidSchema, err: err}
	case err != nil:
		return &refusal{reason: ReasonInvalid, err: err}
	}
	res.schema, res.dropped, res.noSchema = schema.Schema, schema.Dropped, schema.FreeForm
	return nil
}

// content is what makes a revision: a change of any part is a new one.
type content struct {
	Source    v1alpha1.DefinitionSource       `json:"source"`
	Digest    string                          `json:"digest"`
	Schema    apiextensionsv1.JSONSchemaProps `json:"schema"`
	Values    *v1alpha1.ValuesMapping         `json:"values,omitempty"`
	Instances v1alpha1.InstanceSettings       `json:"instances"`
}

func contentDigest(def *v1alpha1.ComponentDefinition, res *resolution) (string, error) {
	raw, err := json.Marshal(content{Source: res.resolved.Pinned, Digest: res.resolved.Resolved.Digest, Schema: res.schema,
		Values: def.Spec.Values, Instances: def.Spec.Instances})
	if err != nil {
		return "", fmt.Errorf("the content of %s: %w", def.Name, err)
	}
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
