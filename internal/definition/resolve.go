package definition

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdschema"
	"github.com/wavekit-dev/wavekit/internal/definition/instance"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// schemaFile is the schema a source brings, as Helm reads it.
const schemaFile = "values.schema.json"

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

// makeSchema makes the schema of an instance's spec: the definition's own,
// or the source's file (values.schema.json, or spec.schema.file). A source
// without one gives a free-form spec.
func (res *resolution) makeSchema(def *v1alpha1.ComponentDefinition) error {
	var document []byte
	where := "spec.schema.jsonSchema"
	switch s := def.Spec.Schema; {
	case s != nil && s.JSONSchema != nil:
		document = s.JSONSchema.Raw
	default:
		file := schemaFile
		if s != nil && s.File != "" {
			file = s.File
		}
		where = "the source's " + file
		path := filepath.Join(res.resolved.Dir, filepath.FromSlash(file))
		if rel, err := filepath.Rel(res.resolved.Dir, path); err != nil || strings.HasPrefix(rel, "..") {
			return &refusal{reason: ReasonInvalid, err: fmt.Errorf("spec.schema.file %s leaves the source", file)}
		}
		raw, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist) && (s == nil || s.File == ""):
			yes := true
			res.schema, res.noSchema = apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &yes}, true
			return nil
		case err != nil:
			return &refusal{reason: ReasonInvalid, err: fmt.Errorf("%s: %w", where, err)}
		}
		document = raw
	}
	converted, err := crdschema.Convert(document)
	if err != nil {
		return &refusal{reason: ReasonInvalidSchema, err: fmt.Errorf("%s cannot be the schema of a kind: %w", where, err)}
	}
	res.schema, res.dropped = converted.Schema, converted.Dropped
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
