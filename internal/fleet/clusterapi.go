package fleet

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

const (
	// capiClusterNameLabel is on every Secret Cluster API makes for a
	// Cluster, with the Cluster's name.
	capiClusterNameLabel = "cluster.x-k8s.io/cluster-name"
	// capiKubeConfigSuffix ends the name of a Cluster's kubeconfig Secret.
	capiKubeConfigSuffix = "-kubeconfig"
	// capiKubeConfigKey is the key of the kubeconfig in that Secret.
	capiKubeConfigKey = "value"
)

// capiClusterKind is Cluster API's Cluster.
var capiClusterKind = schema.GroupKind{Group: "cluster.x-k8s.io", Kind: "Cluster"}

// selectCAPIClusters lists, with from, the Cluster API Clusters of the
// set's namespace whose labels the set's selector selects and that have a
// kubeconfig Secret <cluster>-kubeconfig (labelled with the Cluster's name,
// as Cluster API makes it); their labels and annotations are the Cluster's.
func (r *Reconciler) selectCAPIClusters(ctx context.Context, set *v1alpha1.ComponentSet, selector labels.Selector, from clusterReaders) ([]cluster, error) {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(r.capi.GroupVersion().WithKind(r.capi.Kind + "List"))
	if err := from.clusters.List(ctx, list, client.InNamespace(set.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return nil, fmt.Errorf("listing the Cluster API Clusters of namespace %s: %w", set.Namespace, err)
	}
	if len(list.Items) == 0 {
		return nil, nil
	}
	secrets := &metav1.PartialObjectMetadataList{}
	secrets.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("SecretList"))
	if err := from.kubeconfigs.List(ctx, secrets, client.InNamespace(set.Namespace), client.HasLabels{capiClusterNameLabel}); err != nil {
		return nil, fmt.Errorf("listing the Cluster API kubeconfig Secrets of namespace %s: %w", set.Namespace, err)
	}
	return capiClusters(list.Items, secrets.Items), nil
}

// capiClusters pairs Clusters with their kubeconfig Secrets; a Cluster
// without one (still provisioning) is not a cluster yet, and one being
// deleted is no longer one: Cluster API tears its machines down before the
// Cluster and its Secret go, so its Component deletes the objects while the
// cluster still answers.
func capiClusters(clusters, secrets []metav1.PartialObjectMetadata) []cluster {
	kubeconfigs := map[string]bool{}
	for _, s := range secrets {
		if name := s.Labels[capiClusterNameLabel]; s.Name == name+capiKubeConfigSuffix {
			kubeconfigs[name] = true
		}
	}
	var out []cluster
	for _, c := range clusters {
		if kubeconfigs[c.Name] && c.DeletionTimestamp.IsZero() {
			out = append(out, cluster{Name: c.Name, Secret: c.Name + capiKubeConfigSuffix, Key: capiKubeConfigKey,
				Labels: c.Labels, Annotations: c.Annotations})
		}
	}
	return out
}
