package manifests

// ExternalGroup is the API group of the objects that stand for dependents
// outside Kubernetes in a render (kind = the provider's kind, such as
// PostgresDatabase); pkg/external reads them, the engine never applies them.
const ExternalGroup = "external.wavekit.dev"

// +kubebuilder:object:generate=true

// ExternalItem records one dependent outside Kubernetes (a database, a
// bucket) of a component: recorded before it is created, with its ID as soon
// as the external API gives it, so that a crash neither leaks it nor makes a
// second one. Only kind, name, key and phase are always set.
type ExternalItem struct {
	// Kind of the dependent: the provider that manages it.
	Kind string `json:"kind"`
	// Name of the dependent in the render.
	Name string `json:"name"`
	// Key is the stable name derived from the component and the dependent,
	// which the provider creates the resource under (or uses as an
	// idempotency key) and looks it up by before creating it again.
	Key string `json:"key"`
	// ID is the external API's identifier of the resource; empty until
	// it is known.
	// +optional
	ID string `json:"id,omitempty"`
	// ApplyOrder is the wave the dependent is applied in.
	// +optional
	ApplyOrder int16 `json:"applyOrder,omitempty"`
	// DeleteOrder is the wave it is deleted in when the component goes.
	// +optional
	DeleteOrder int16 `json:"deleteOrder,omitempty"`
	// ReconcilePolicy, empty for the default (on-object-change).
	// +optional
	ReconcilePolicy ReconcilePolicy `json:"reconcilePolicy,omitempty"`
	// DeletePolicy, empty for the default (delete).
	// +optional
	DeletePolicy DeletePolicy `json:"deletePolicy,omitempty"`
	// CredentialsFrom names the Secret, in the component's namespace, that
	// holds the credentials of the external API.
	// +optional
	CredentialsFrom string `json:"credentialsFrom,omitempty"`
	// SecretName names the Secret of the component that holds the
	// resource's generated credentials (never their values).
	// +optional
	SecretName string `json:"secretName,omitempty"`
	// Digest of the desired state as last written.
	// +optional
	Digest string `json:"digest,omitempty"`
	// Phase is where the dependent stands.
	Phase Phase `json:"phase"`
	// Status says what it waits for or what failed; empty when Ready.
	// +optional
	Status string `json:"status,omitempty"`
}

// ObjectKey is the key of the dependent in results and messages.
func (i ExternalItem) ObjectKey(namespace string) ObjectKey {
	return ObjectKey{Group: ExternalGroup, Kind: i.Kind, Namespace: namespace, Name: i.Name}
}
