package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/strvals"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// defaultValuesKey is the key valuesFrom reads when it names none.
const defaultValuesKey = "values.yaml"

// values merges the values of spec.valuesFrom, in order, and then
// spec.values over them, as Flux's HelmRelease does. It reads the
// ConfigMaps and Secrets with reader, the Component's own identity.
func (r *resolver) values(ctx context.Context, reader client.Reader, c *v1alpha1.Component) (manifests.Values, error) {
	reads, err := r.readAllValues(ctx, reader, c)
	if err != nil {
		return nil, err
	}
	return mergedValues(ctx, reader, c, reads)
}

// valuesRead is what one valuesFrom entry held when it was read.
type valuesRead struct {
	data  string
	found bool
}

// readAllValues reads every valuesFrom entry, in order.
func (r *resolver) readAllValues(ctx context.Context, reader client.Reader, c *v1alpha1.Component) ([]valuesRead, error) {
	reads := make([]valuesRead, len(c.Spec.ValuesFrom))
	for i, ref := range c.Spec.ValuesFrom {
		data, found, err := r.readValues(ctx, reader, c, i, ref)
		if err != nil {
			return nil, fmt.Errorf("spec.valuesFrom[%d]: %w", i, err)
		}
		reads[i] = valuesRead{data: data, found: found}
	}
	return reads, nil
}

// mergedValues merges what the valuesFrom entries held (reads, in their
// order), decrypted, then spec.values over them.
func mergedValues(ctx context.Context, reader client.Reader, c *v1alpha1.Component, reads []valuesRead) (manifests.Values, error) {
	merged := map[string]any{}
	for i, ref := range c.Spec.ValuesFrom {
		if !reads[i].found {
			continue
		}
		data, err := decryptedValues(ctx, reader, c, ref, reads[i].data)
		if err != nil {
			return nil, fmt.Errorf("spec.valuesFrom[%d]: %w", i, err)
		}
		if merged, err = mergeValues(merged, ref, data); err != nil {
			return nil, fmt.Errorf("spec.valuesFrom[%d]: %s: %w", i, describeValues(ref), err)
		}
	}
	own := map[string]any{}
	if c.Spec.Values != nil && len(c.Spec.Values.Raw) > 0 {
		if err := json.Unmarshal(c.Spec.Values.Raw, &own); err != nil {
			return nil, fmt.Errorf("spec.values: %w", err)
		}
	}
	return manifests.MergeValues(merged, own), nil
}

// mergeValues merges data into merged: as YAML values, or, with a target
// path, as one value at that path (Helm's --set syntax).
func mergeValues(merged map[string]any, ref v1alpha1.ValuesReference, data string) (map[string]any, error) {
	if ref.TargetPath != "" {
		if err := strvals.ParseIntoString(ref.TargetPath+"="+escapeSetValue(data), merged); err != nil {
			return nil, fmt.Errorf("targetPath %s: %w", ref.TargetPath, err)
		}
		return merged, nil
	}
	parsed := map[string]any{}
	if err := yaml.Unmarshal([]byte(data), &parsed); err != nil {
		return nil, fmt.Errorf("not YAML values: %w", err)
	}
	return manifests.MergeValues(merged, parsed), nil
}

// escapeSetValue keeps a value whole in Helm's --set syntax, where a comma
// would start the next assignment.
func escapeSetValue(v string) string {
	return strings.NewReplacer(`\`, `\\`, ",", `\,`).Replace(v)
}

// readValues returns the content of the i-th valuesFrom entry: a key of a
// ConfigMap or Secret, or a file of a Git repository.
func (r *resolver) readValues(ctx context.Context, reader client.Reader, c *v1alpha1.Component, i int, ref v1alpha1.ValuesReference) (string, bool, error) {
	if ref.Kind == gitValuesKind {
		return r.gitValues(ctx, c, reader, i, ref)
	}
	return readValuesKey(ctx, reader, c.Namespace, ref)
}

// gitValuesKind is the valuesFrom kind of a Git repository's values file.
const gitValuesKind = "Git"

// readValuesKey returns the content of one valuesFrom key, or found false
// when the object or key is missing and the reference is optional.
func readValuesKey(ctx context.Context, reader client.Reader, namespace string, ref v1alpha1.ValuesReference) (string, bool, error) {
	id := types.NamespacedName{Namespace: namespace, Name: ref.Name}
	key := valuesKey(ref)
	var data map[string]string
	switch ref.Kind {
	case "ConfigMap":
		cm := &corev1.ConfigMap{}
		if err := reader.Get(ctx, id, cm); err != nil {
			return missing(ref, err)
		}
		data = cm.Data
	case "Secret":
		secret := &corev1.Secret{}
		if err := reader.Get(ctx, id, secret); err != nil {
			return missing(ref, err)
		}
		data = make(map[string]string, len(secret.Data))
		for k, v := range secret.Data {
			data[k] = string(v)
		}
	default:
		return "", false, fmt.Errorf("kind %q: want ConfigMap or Secret", ref.Kind)
	}
	value, ok := data[key]
	switch {
	case ok:
		return value, true, nil
	case ref.Optional:
		return "", false, nil
	}
	return "", false, fmt.Errorf("%s %s/%s has no key %s (keys: %s)", ref.Kind, namespace, ref.Name, key, keyList(data))
}

func missing(ref v1alpha1.ValuesReference, err error) (string, bool, error) {
	if apierrors.IsNotFound(err) {
		if ref.Optional {
			return "", false, nil
		}
		return "", false, fmt.Errorf("%s %s not found", ref.Kind, ref.Name)
	}
	return "", false, readError(fmt.Errorf("reading %s %s: %w", ref.Kind, ref.Name, err))
}

// describeValues names where a valuesFrom entry's values come from.
func describeValues(ref v1alpha1.ValuesReference) string {
	if ref.Kind == gitValuesKind && ref.Git != nil {
		return fmt.Sprintf("file %s of %s", ref.Git.Path, ref.Git.URL)
	}
	return fmt.Sprintf("%s %s key %s", ref.Kind, ref.Name, valuesKey(ref))
}

func valuesKey(ref v1alpha1.ValuesReference) string {
	if ref.ValuesKey == "" {
		return defaultValuesKey
	}
	return ref.ValuesKey
}

// keyList names the keys of data (never their values), sorted.
func keyList(data map[string]string) string {
	if len(data) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(data)), ", ")
}
