package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ClusterValuesKey is the default key of a per-cluster Component's
// spec.values under which a ComponentSet puts the cluster's name, labels and
// annotations ({"cluster": {"name": ..., "labels": {...}, "annotations":
// {...}}}); a template's own value at that key is replaced.
const ClusterValuesKey = "cluster"

// NoClusterValues, as spec.clusterValuesKey, puts no cluster values in the
// Components' values (for a source whose values schema allows no such key).
const NoClusterValues = "-"

// RemovalPolicy says what happens to the Component of a cluster that leaves
// a ComponentSet's selection.
// +kubebuilder:validation:Enum=Delete;Orphan
type RemovalPolicy string

// Removal policies.
const (
	// RemovalDelete deletes the Component, and with it (its finalizer) the
	// objects on the cluster. The default.
	RemovalDelete RemovalPolicy = "Delete"
	// RemovalOrphan leaves the Component, released by the set (no owner
	// reference), and the objects on the cluster where they are.
	RemovalOrphan RemovalPolicy = "Orphan"
)

// ComponentSetSpec places one Component on every selected cluster, or per
// input, or per cluster and input.
// +kubebuilder:validation:XValidation:rule="has(self.placement) || has(self.inputs)",message="set spec.placement, spec.inputs or both"
type ComponentSetSpec struct {
	// Template is what every cluster's Component is made of: its spec, to
	// which the set adds spec.kubeConfig (the cluster's Secret) and the
	// cluster's name, labels and annotations under spec.values.cluster.
	Template ComponentTemplate `json:"template"`
	// Placement selects the clusters. Without it, spec.inputs makes the
	// members, on the operator's own cluster; with both, one member per
	// cluster and input.
	// +optional
	Placement *Placement `json:"placement,omitempty"`
	// Inputs make one member per input (an entry of a list, a Git folder
	// or file, a pull request) rather than, or besides, per cluster.
	// +optional
	Inputs *Inputs `json:"inputs,omitempty"`
	// Rollout says in which cluster waves a new template reaches the
	// clusters.
	// +optional
	Rollout Rollout `json:"rollout,omitempty"`
	// Paused stops the rollout where it is: no Component is created,
	// updated or removed until it is false again. Deletion still works.
	// +optional
	Paused bool `json:"paused,omitempty"`
	// ClusterValuesKey is the key of each cluster's Component's spec.values
	// that holds the cluster's name, labels and annotations (those of the
	// Kubernetes domains left out), replacing the template's value at that
	// key; default "cluster": a template reads .Values.cluster.labels.region.
	// "-" puts none, for a source whose values schema allows no such key.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^([-]|[a-zA-Z_][a-zA-Z0-9_]*)$`
	// +optional
	ClusterValuesKey string `json:"clusterValuesKey,omitempty"`
	// RemovalPolicy says what happens to the Component of a cluster that
	// leaves the selection (its Secret deleted or relabelled): Delete (the
	// default) deletes it and its objects on the cluster, with the set's copy
	// of the cluster's kubeconfig when its Secret went first; Orphan leaves
	// both in place. A cluster list that cannot be read removes nothing.
	// +optional
	RemovalPolicy RemovalPolicy `json:"removalPolicy,omitempty"`
	// UnreachableTimeout bounds how long the set waits for a cluster whose
	// API server does not answer while its Component is being deleted, by
	// the set's deletion or because the cluster left (default 10m). Past it,
	// the set goes on and leaves that cluster's Component behind, still
	// being deleted: it stays, says what it waits for, and deletes the
	// cluster's objects once the cluster answers; an Event of the set
	// (reason LeftBehind) names it. When the cluster's Secret is gone too and
	// only the set's copy of its kubeconfig is left, the set releases the
	// Component instead, past the same time, if the cluster does not answer
	// or the deletion fails: the objects stay on the cluster, and an Event
	// (reason ObjectsLeft) and status.leftClusters name them.
	// +optional
	UnreachableTimeout *metav1.Duration `json:"unreachableTimeout,omitempty"`
}

// DefaultUnreachableTimeout is spec.unreachableTimeout when it is not set.
const DefaultUnreachableTimeout = 10 * time.Minute

// GetUnreachableTimeout returns spec.unreachableTimeout, or its default.
func (s *ComponentSetSpec) GetUnreachableTimeout() time.Duration {
	if s.UnreachableTimeout == nil {
		return DefaultUnreachableTimeout
	}
	return s.UnreachableTimeout.Duration
}

// ComponentTemplate is the template of the per-cluster Components.
// +kubebuilder:validation:XValidation:rule="!has(self.spec.kubeConfig)",message="spec.template.spec.kubeConfig is set by the set from each cluster's Secret: leave it out"
type ComponentTemplate struct {
	// Labels are put on every cluster's Component, besides the set's own.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Spec of every cluster's Component.
	Spec ComponentSpec `json:"spec"`
}

// Placement selects the clusters of a set.
type Placement struct {
	// ClusterSelector selects, by their labels, the cluster Secrets of the
	// set's own namespace: Secrets labelled <operator>/cluster: "true"
	// (wavekit.dev/cluster with the default operator name) that hold a
	// kubeconfig under kubeConfigKey, with the rules of a Component's
	// spec.kubeConfig (no exec, no token or certificate files). An empty
	// selector selects every cluster Secret of the namespace.
	ClusterSelector metav1.LabelSelector `json:"clusterSelector"`
	// KubeConfigKey is the key of the kubeconfig in the cluster Secrets;
	// default "value" (also the key of Cluster API's <cluster>-kubeconfig
	// Secrets).
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +optional
	KubeConfigKey string `json:"kubeConfigKey,omitempty"`
}

// Rollout orders the clusters in waves.
type Rollout struct {
	// WaveLabel is a label of the cluster Secrets whose value puts a cluster
	// in a wave, in the order of waveOrder; clusters with a value that
	// waveOrder does not list, or without the label, make a last wave.
	// Without it, the clusters (sorted by name) go in waves of
	// maxUnavailable clusters, or all in one wave when that is not set.
	// +kubebuilder:validation:MaxLength=317
	// +optional
	WaveLabel string `json:"waveLabel,omitempty"`
	// WaveOrder are the values of waveLabel, first wave first (e.g. canary,
	// eu, us).
	// +kubebuilder:validation:MaxItems=32
	// +optional
	WaveOrder []string `json:"waveOrder,omitempty"`
	// MaxUnavailable is how many clusters (a count, or a percentage of the
	// selected clusters, rounded down, at least 1) may be unreachable
	// without holding up the next wave, and without waveLabel, the size of
	// each wave. An unreachable cluster keeps its new spec and catches up
	// when it is back. Default 1.
	// +kubebuilder:validation:XIntOrString
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}

// ComponentSetStatus says where the rollout is.
type ComponentSetStatus struct {
	// ObservedGeneration is the set generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// LastHandledReconcileAt is the value of the set's annotation
	// <operator>/reconcile-requested-at that the set last passed on to its
	// clusters' Components (which then reconcile, as that annotation asks
	// of a Component); a paused set passes none on until it is resumed.
	// +optional
	LastHandledReconcileAt string `json:"lastHandledReconcileAt,omitempty"`
	// Conditions hold Ready (every selected cluster's Component is Ready at
	// the current template), Reconciling while the rollout goes on, and
	// Stalled when it stopped at a failed cluster or could not read the
	// cluster list.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Rollout sums the clusters up.
	// +optional
	Rollout RolloutStatus `json:"rollout,omitempty"`
	// Inputs says what spec.inputs gave at the last read, or why the read
	// failed.
	// +optional
	Inputs *InputsStatus `json:"inputs,omitempty"`
	// Clusters is one line per cluster, those that are leaving and those
	// that left objects behind included, at most 50, then "… and N more";
	// the details are in each cluster's Component.
	// +kubebuilder:validation:MaxItems=51
	// +optional
	Clusters []string `json:"clusters,omitempty"`
	// LeftClusters are the clusters that left the set with objects still
	// on them: the set could not delete those objects (the cluster's
	// kubeconfig Secret was gone and the set had no copy of it, or, with
	// only the set's copy left, the cluster did not answer or the deletion
	// failed for unreachableTimeout) and released the cluster's Component
	// without them. Newest
	// first, at most 20; a cluster's entry goes when the set selects the
	// cluster again.
	// +kubebuilder:validation:MaxItems=20
	// +optional
	LeftClusters []LeftCluster `json:"leftClusters,omitempty"`
}

// MaxLeftClusters bounds status.leftClusters.
const MaxLeftClusters = 20

// LeftCluster is a cluster that left a ComponentSet with objects on it.
type LeftCluster struct {
	// Cluster is the cluster's name.
	Cluster string `json:"cluster"`
	// Component is the name of the cluster's Component, which the set
	// released.
	Component string `json:"component"`
	// Time is when the set released the Component.
	Time metav1.Time `json:"time"`
	// Reason says why the set could not delete the objects.
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason"`
	// Objects names the first objects left on the cluster ("Kind
	// namespace/name", or "Kind name" for a cluster-scoped one).
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Objects []string `json:"objects,omitempty"`
	// ObjectCount is how many objects were left on the cluster.
	ObjectCount int32 `json:"objectCount"`
}

// RolloutStatus sums a set's clusters up.
type RolloutStatus struct {
	// Wave is the wave the rollout is at (1-based); Waves when done.
	// +optional
	Wave int32 `json:"wave,omitempty"`
	// Waves is the number of cluster waves.
	// +optional
	Waves int32 `json:"waves,omitempty"`
	// Clusters is the number of selected clusters.
	// +optional
	Clusters int32 `json:"clusters,omitempty"`
	// Ready clusters run the current template and are Ready.
	// +optional
	Ready int32 `json:"ready,omitempty"`
	// Updating clusters are being brought to the current template.
	// +optional
	Updating int32 `json:"updating,omitempty"`
	// Failed clusters failed at the current template.
	// +optional
	Failed int32 `json:"failed,omitempty"`
	// Unreachable clusters' API servers cannot be reached.
	// +optional
	Unreachable int32 `json:"unreachable,omitempty"`
	// Waiting clusters are in a wave the rollout has not reached.
	// +optional
	Waiting int32 `json:"waiting,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Wave",type=integer,JSONPath=`.status.rollout.wave`
// +kubebuilder:printcolumn:name="Waves",type=integer,JSONPath=`.status.rollout.waves`
// +kubebuilder:printcolumn:name="Clusters",type=integer,JSONPath=`.status.rollout.clusters`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ComponentSet places one Component on each selected cluster and rolls a
// new template out to them in cluster waves.
type ComponentSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ComponentSetSpec   `json:"spec,omitempty"`
	Status ComponentSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ComponentSetList is a list of ComponentSets.
type ComponentSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ComponentSet `json:"items"`
}
