package external

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Dependent is one external dependent of a render, validated: its object,
// the policies its annotations set, and the digest of its desired state.
type Dependent struct {
	Object
	Policies manifests.ObjectPolicies
	// Poll is the poll interval (0: the poller's default).
	Poll time.Duration
	// Digest is the first 128 bits of the SHA-256 of the desired Spec, hex.
	Digest string
}

// topLevel are the fields an external object may have.
var topLevel = map[string]bool{
	"apiVersion": true, "kind": true, "metadata": true, "spec": true,
	"credentialsFrom": true, "secret": true, "pollInterval": true,
}

// Split takes the external dependents out of a render: the objects of
// group manifests.ExternalGroup, validated, in render order, and the
// Kubernetes objects, for the engine. prefix is the annotation prefix (the
// operator name). An invalid dependent is a manifests.UserError that names
// it; nothing is then applied.
func Split(prefix string, objects []client.Object, defaults manifests.Defaults) ([]Dependent, []client.Object, error) {
	var deps []Dependent
	rest := make([]client.Object, 0, len(objects))
	seen := map[string]bool{}
	for _, obj := range objects {
		if obj.GetObjectKind().GroupVersionKind().Group != manifests.ExternalGroup {
			rest = append(rest, obj)
			continue
		}
		d, err := parse(prefix, obj, defaults)
		if err != nil {
			return nil, nil, &manifests.UserError{Err: fmt.Errorf("invalid external dependent: %w", err)}
		}
		if id := d.Kind + "/" + d.Name; seen[id] {
			return nil, nil, &manifests.UserError{Err: fmt.Errorf("invalid external dependent: %s %s is rendered twice", d.Kind, d.Name)}
		} else {
			seen[id] = true
		}
		deps = append(deps, d)
	}
	return deps, rest, nil
}

// parse reads one external object.
func parse(prefix string, obj client.Object, defaults manifests.Defaults) (Dependent, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return Dependent{}, fmt.Errorf("%s %s: build it with external.New, not as a typed object", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName())
	}
	gvk := u.GroupVersionKind()
	what := gvk.Kind + " " + u.GetName()
	switch {
	case gvk.Version != Version:
		return Dependent{}, fmt.Errorf("%s: apiVersion %s/%s is not served (use %s/%s)", what, gvk.Group, gvk.Version, manifests.ExternalGroup, Version)
	case gvk.Kind == "" || u.GetName() == "":
		return Dependent{}, fmt.Errorf("%s: kind and metadata.name are required", what)
	}
	for field := range u.Object {
		if !topLevel[field] {
			return Dependent{}, fmt.Errorf("%s: unknown field %q (allowed: spec, credentialsFrom, secret, pollInterval)", what, field)
		}
	}
	d := Dependent{Object: Object{Kind: gvk.Kind, Name: u.GetName(), Annotations: u.GetAnnotations()}}
	var err error
	if d.Policies, err = manifests.ParsePolicies(prefix, what, d.Annotations, defaults); err != nil {
		return Dependent{}, err
	}
	if err := d.readFields(what, u.Object); err != nil {
		return Dependent{}, err
	}
	d.Digest, err = digest(d.Spec)
	if err != nil {
		return Dependent{}, fmt.Errorf("%s: spec: %w", what, err)
	}
	return d, nil
}

// readFields reads spec, credentialsFrom, secret and pollInterval.
func (d *Dependent) readFields(what string, fields map[string]any) error {
	var ok bool
	if spec, found := fields["spec"]; found && spec != nil {
		if d.Spec, ok = spec.(map[string]any); !ok {
			return fmt.Errorf("%s: spec must be an object", what)
		}
	}
	if v, found := fields["credentialsFrom"]; found {
		if d.CredentialsFrom, ok = v.(string); !ok {
			return fmt.Errorf("%s: credentialsFrom must be the name of a Secret", what)
		}
	}
	if v, found := fields["pollInterval"]; found {
		s, _ := v.(string)
		poll, err := time.ParseDuration(s)
		if err != nil || poll <= 0 {
			return fmt.Errorf("%s: pollInterval %v is not a positive Go duration such as 30s", what, v)
		}
		d.PollInterval, d.Poll = s, poll
	}
	if v, found := fields["secret"]; found {
		secret, err := readSecretSpec(v)
		if err != nil {
			return fmt.Errorf("%s: secret: %w", what, err)
		}
		d.Secret = secret
	}
	return nil
}

// readSecretSpec reads a dependent's secret field.
func readSecretSpec(v any) (*SecretSpec, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var s SecretSpec
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("want {name, generate, data}: %w", err)
	}
	if s.Name == "" {
		return nil, fmt.Errorf("name is required")
	}
	for _, k := range s.Generate {
		if _, fixed := s.Data[k]; fixed {
			return nil, fmt.Errorf("key %q is both generated and fixed", k)
		}
	}
	return &s, nil
}

// digest is the first 128 bits of the SHA-256 of spec as JSON, hex.
func digest(spec map[string]any) (string, error) {
	raw, err := json.Marshal(spec)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:16]), nil
}

// runtimeJSON turns Go values into the JSON values unstructured objects
// hold (map[string]any, []any, string, float64/int64, bool).
func runtimeJSON(spec map[string]any) map[string]any {
	if spec == nil {
		return map[string]any{}
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return spec
	}
	var out map[string]any
	if json.Unmarshal(raw, &out) != nil {
		return spec
	}
	return out
}

var notKeyChars = regexp.MustCompile(`[^a-z0-9_]+`)

// maxKey is the longest Key: PostgreSQL's identifiers stop at 63 bytes,
// many APIs at 64.
const maxKey = 48

// Key derives a dependent's stable name from its component's namespace and
// name and its own kind and name: lower case letters, digits and '_', at
// most 48 characters, with a hash when it had to be shortened.
func Key(namespace, component, kind, name string) string {
	full := strings.ToLower(namespace + "_" + component + "_" + name)
	key := strings.Trim(notKeyChars.ReplaceAllString(full, "_"), "_")
	if len(key) <= maxKey && key == full {
		return key
	}
	sum := sha256.Sum256([]byte(namespace + "/" + component + "/" + kind + "/" + name))
	short := key
	if len(short) > maxKey-9 {
		short = short[:maxKey-9]
	}
	return short + "_" + hex.EncodeToString(sum[:4])
}
