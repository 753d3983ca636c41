package fleet

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
)

// defaultKubeConfigKey is the key of the kubeconfig in a cluster Secret.
const defaultKubeConfigKey = "value"

// desired is what a cluster's Component should be.
type desired struct {
	Spec   v1alpha1.ComponentSpec
	Labels map[string]string
	// Hash is the digest of Spec and Labels, recorded on the Component
	// to tell whether it has the current template.
	Hash string
}

// desire makes the Component spec of member c from the set's template:
// the template's spec, with c's input put in its placeholders (a set with
// spec.inputs), spec.kubeConfig naming c's cluster Secret (not for a
// member on the operator's cluster), spec.name the set's name unless the
// template names a release (so the objects are named alike on every
// cluster; a member of an input: its own name), and c's cluster and input
// under spec.values.cluster and spec.values.input.
func desire(set *v1alpha1.ComponentSet, c cluster) (desired, error) {
	spec, err := templateSpec(set, c)
	if err != nil {
		return desired{}, err
	}
	if !c.Pull && !c.Local {
		spec.KubeConfig = kubeConfigOf(set, c)
	}
	if spec.Name == "" {
		spec.Name = set.Name
		if c.Input != nil {
			spec.Name = c.Name
		}
	}
	values := spec.Values
	if !c.Local {
		if values, err = clusterValues(values, set.Spec.ClusterValuesKey, c); err != nil {
			return desired{}, err
		}
	}
	if c.Input != nil {
		if values, err = inputValues(values, set.Spec.Inputs.ValuesKey, c); err != nil {
			return desired{}, err
		}
	}
	spec.Values = values
	labels := maps.Clone(set.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, set.Spec.Template.Labels)
	encoded, err := json.Marshal(struct {
		Spec   v1alpha1.ComponentSpec `json:"spec"`
		Labels map[string]string      `json:"labels"`
	}{spec, labels})
	if err != nil {
		return desired{}, fmt.Errorf("encoding the Component of %s: %w", c.describe(), err)
	}
	sum := sha256.Sum256(encoded)
	return desired{Spec: spec, Labels: labels, Hash: hex.EncodeToString(sum[:16])}, nil
}

// templateSpec is the template's spec, its placeholders replaced with c's
// input and cluster for a set with spec.inputs.
func templateSpec(set *v1alpha1.ComponentSet, c cluster) (v1alpha1.ComponentSpec, error) {
	spec := *set.Spec.Template.Spec.DeepCopy()
	if c.Input == nil {
		return spec, nil
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return spec, fmt.Errorf("encoding spec.template.spec: %w", err)
	}
	if raw, err = inputs.Substitute(raw, c.values()); err != nil {
		return spec, fmt.Errorf("spec.template.spec for %s: %w", c.describe(), err)
	}
	out := v1alpha1.ComponentSpec{}
	if err := json.Unmarshal(raw, &out); err != nil {
		return spec, fmt.Errorf("spec.template.spec for %s, its placeholders replaced: %w", c.describe(), err)
	}
	return out, nil
}

// kubeConfigOf names the Secret and key of c's kubeconfig.
func kubeConfigOf(set *v1alpha1.ComponentSet, c cluster) *v1alpha1.SecretKeyReference {
	key := defaultKubeConfigKey
	if set.Spec.Placement != nil && set.Spec.Placement.KubeConfigKey != "" {
		key = set.Spec.Placement.KubeConfigKey
	}
	secret := c.clusterName()
	if c.Secret != "" {
		secret = c.Secret
	}
	if c.Key != "" {
		key = c.Key
	}
	return &v1alpha1.SecretKeyReference{Name: secret, Key: key}
}

// clusterValues returns the template's values with c under key (default
// v1alpha1.ClusterValuesKey; v1alpha1.NoClusterValues: the template's as
// they are).
func clusterValues(template *apiextensionsv1.JSON, key string, c cluster) (*apiextensionsv1.JSON, error) {
	switch key {
	case v1alpha1.NoClusterValues:
		return template, nil
	case "":
		key = v1alpha1.ClusterValuesKey
	}
	values := map[string]any{}
	if template != nil && len(template.Raw) > 0 {
		if err := json.Unmarshal(template.Raw, &values); err != nil {
			return nil, fmt.Errorf("spec.template.spec.values: want an object: %w", err)
		}
	}
	values[key] = map[string]any{
		"name":        c.clusterName(),
		"labels":      orEmpty(c.Labels),
		"annotations": clusterAnnotations(c.Annotations),
	}
	raw, err := json.Marshal(values)
	if err != nil {
		return nil, fmt.Errorf("encoding the values of cluster %s: %w", c.clusterName(), err)
	}
	return &apiextensionsv1.JSON{Raw: raw}, nil
}

// inputValues returns values with c's input fields under key (default
// v1alpha1.InputValuesKey; "-": values as they are).
func inputValues(values *apiextensionsv1.JSON, key string, c cluster) (*apiextensionsv1.JSON, error) {
	switch key {
	case "-":
		return values, nil
	case "":
		key = v1alpha1.InputValuesKey
	}
	out := map[string]any{}
	if values != nil && len(values.Raw) > 0 {
		if err := json.Unmarshal(values.Raw, &out); err != nil {
			return nil, fmt.Errorf("spec.template.spec.values: want an object: %w", err)
		}
	}
	out[key] = c.Input.Fields
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding the values of %s: %w", c.describe(), err)
	}
	return &apiextensionsv1.JSON{Raw: raw}, nil
}

// clusterAnnotations are the annotations of a cluster Secret a template may
// see: none of the Kubernetes domains (kubectl's last-applied-configuration
// holds the Secret's data), so no Secret value reaches a Component's spec.
func clusterAnnotations(annotations map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range annotations {
		prefix, _, qualified := strings.Cut(k, "/")
		if qualified && (prefix == "kubernetes.io" || strings.HasSuffix(prefix, ".kubernetes.io") ||
			prefix == "k8s.io" || strings.HasSuffix(prefix, ".k8s.io")) {
			continue
		}
		out[k] = v
	}
	return out
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
