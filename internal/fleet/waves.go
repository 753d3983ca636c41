package fleet

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/inputs"
)

// cluster is a selected cluster: its name, the Secret and key of its
// kubeconfig, and the labels and annotations it is selected by and that its
// Component's values get.
type cluster struct {
	// Name names the member: the cluster, whose Component is <set>-<name>,
	// or for a set with spec.inputs the member's Component.
	Name string
	// ClusterName is, for a member of an input on a cluster, the cluster's
	// name; empty otherwise (Name is the cluster's, or Local).
	ClusterName string
	// Input is the member's input, for a set with spec.inputs.
	Input *inputs.Input
	// Local: the member's Component goes to the operator's own cluster (a
	// set with spec.inputs and no spec.placement).
	Local bool
	// Secret and Key hold the kubeconfig; Secret empty: the Secret of the
	// cluster's name, Key empty: the set's kubeConfigKey.
	Secret, Key string
	Labels      map[string]string
	Annotations map[string]string
	// Pull: the cluster runs an agent, which pulls its Component from a
	// ComponentWork on the hub (pull.go); its Secret holds no kubeconfig.
	Pull bool
}

// clusterName is the name of the member's cluster: ClusterName, else Name.
func (c cluster) clusterName() string {
	if c.ClusterName != "" {
		return c.ClusterName
	}
	return c.Name
}

// defaultMaxUnavailable is rollout.maxUnavailable when it is not set.
var defaultMaxUnavailable = intstr.FromInt32(1)

// maxUnavailable resolves rollout.maxUnavailable against the number of
// clusters: a count, or a percentage rounded down; at least 1.
func maxUnavailable(r v1alpha1.Rollout, clusters int) (int, error) {
	value := defaultMaxUnavailable
	if r.MaxUnavailable != nil {
		value = *r.MaxUnavailable
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(&value, clusters, false)
	if err != nil {
		return 0, fmt.Errorf("spec.rollout.maxUnavailable %q: %w", value.String(), err)
	}
	return max(n, 1), nil
}

// assignWaves orders clusters in waves: by rollout.waveLabel in the order of
// rollout.waveOrder (clusters of other values, or without the label, last),
// else in waves of maxUnavailable clusters when it is set, else all in one
// wave. Clusters within a wave are sorted by name; empty waves are dropped.
func assignWaves(r v1alpha1.Rollout, clusters []cluster) ([][]cluster, error) {
	sorted := slices.Clone(clusters)
	slices.SortFunc(sorted, func(a, b cluster) int { return strings.Compare(a.Name, b.Name) })
	if r.WaveLabel != "" {
		return wavesByLabel(r, sorted), nil
	}
	if r.MaxUnavailable == nil {
		if len(sorted) == 0 {
			return nil, nil
		}
		return [][]cluster{sorted}, nil
	}
	size, err := maxUnavailable(r, len(sorted))
	if err != nil {
		return nil, err
	}
	var waves [][]cluster
	for chunk := range slices.Chunk(sorted, size) {
		waves = append(waves, chunk)
	}
	return waves, nil
}

// wavesByLabel groups sorted clusters by the value of rollout.waveLabel.
func wavesByLabel(r v1alpha1.Rollout, sorted []cluster) [][]cluster {
	waves := make([][]cluster, len(r.WaveOrder)+1)
	for _, c := range sorted {
		i := slices.Index(r.WaveOrder, c.Labels[r.WaveLabel])
		if _, labelled := c.Labels[r.WaveLabel]; !labelled || i < 0 {
			i = len(r.WaveOrder)
		}
		waves[i] = append(waves[i], c)
	}
	return slices.DeleteFunc(waves, func(w []cluster) bool { return len(w) == 0 })
}
