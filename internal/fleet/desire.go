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

// desire makes the Component spec of cluster c from the set's template:
// the template's spec, spec.kubeConfig naming c's Secret, spec.name the
// set's name unless the template names a release (so the objects are named
// alike on every cluster), and c's name, labels and annotations under
// spec.values.cluster.
func desire(set *v1alpha1.ComponentSet, c cluster) (desired, error) {
	spec := *set.Spec.Template.Spec.DeepCopy()
	key := set.Spec.Placement.KubeConfigKey
	if key == "" {
		key = defaultKubeConfigKey
	}
	secret := c.Name
	if c.Secret != "" {
		secret = c.Secret
	}
	if c.Key != "" {
		key = c.Key
	}
	if !c.Pull {
		spec.KubeConfig = &v1alpha1.SecretKeyReference{Name: secret, Key: key}
	}
	if spec.Name == "" {
		spec.Name = set.Name
	}
	values, err := clusterValues(spec.Values, set.Spec.ClusterValuesKey, c)
	if err != nil {
		return desired{}, err
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
		return desired{}, fmt.Errorf("encoding the Component of cluster %s: %w", c.Name, err)
	}
	sum := sha256.Sum256(encoded)
	return desired{Spec: spec, Labels: labels, Hash: hex.EncodeToString(sum[:16])}, nil
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
		"name":        c.Name,
		"labels":      orEmpty(c.Labels),
		"annotations": clusterAnnotations(c.Annotations),
	}
	raw, err := json.Marshal(values)
	if err != nil {
		return nil, fmt.Errorf("encoding the values of cluster %s: %w", c.Name, err)
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
