package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ReceiverType says who sends a Receiver's webhooks and how a request is
// verified.
// +kubebuilder:validation:Enum=github;gitlab;harbor;generic-hmac
type ReceiverType string

// Receiver types.
const (
	// ReceiverGitHub verifies X-Hub-Signature-256, the HMAC-SHA256 of the
	// body with the token, as GitHub (and Gitea) sign webhooks; events are
	// matched against X-GitHub-Event.
	ReceiverGitHub ReceiverType = "github"
	// ReceiverGitLab compares X-Gitlab-Token with the token; events are
	// matched against X-Gitlab-Event.
	ReceiverGitLab ReceiverType = "gitlab"
	// ReceiverHarbor compares the Authorization header with the token, as
	// Harbor and other OCI registries send their webhooks' auth header.
	ReceiverHarbor ReceiverType = "harbor"
	// ReceiverGenericHMAC verifies X-Signature: sha256=<hex HMAC-SHA256 of
	// the body with the token>.
	ReceiverGenericHMAC ReceiverType = "generic-hmac"
)

// ReceiverTokenKey is the key of a Receiver's Secret that holds its token.
const ReceiverTokenKey = "token"

// ReceiverSpec says which webhooks a Receiver accepts and what a verified
// one asks to reconcile.
// +kubebuilder:validation:XValidation:rule="!has(self.events) || size(self.events) == 0 || self.type == 'github' || self.type == 'gitlab'",message="spec.events filters the events of github and gitlab Receivers only: harbor and generic-hmac requests name no event"
type ReceiverSpec struct {
	// Type is who sends the webhooks: github, gitlab, harbor (any OCI
	// registry that sends the token as its Authorization header) or
	// generic-hmac.
	Type ReceiverType `json:"type"`
	// Events are the events (X-GitHub-Event, X-Gitlab-Event) that ask for a
	// reconcile, compared without regard to case, e.g. push, "Push Hook",
	// "Tag Push Hook"; a verified request of another event is answered 200
	// and does nothing. Empty: every event. github and gitlab only.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=128
	// +optional
	Events []string `json:"events,omitempty"`
	// SecretRef names a Secret of the Receiver's namespace whose key
	// "token" holds the token: the HMAC key of github and generic-hmac, the
	// value of the header gitlab and harbor send. The webhook path depends
	// on it, so a new token gives a new path.
	SecretRef LocalObjectReference `json:"secretRef"`
	// Resources are the Components and ComponentSets of the Receiver's own
	// namespace that a verified request asks to reconcile.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Resources []ReceiverResource `json:"resources"`
	// Suspend refuses every request (503) until it is false again.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// ReceiverResource names Components or ComponentSets of the Receiver's
// namespace: one by name, or with name "*" every one of the kind that
// matchLabels selects (every one when it is empty). There is no namespace:
// a Receiver reaches only its own namespace.
// +kubebuilder:validation:XValidation:rule="self.name == '*' || !has(self.matchLabels) || size(self.matchLabels) == 0",message="matchLabels selects with name \"*\" only"
type ReceiverResource struct {
	// Kind is Component or ComponentSet (whose request is passed on to
	// each of its clusters' Components).
	// +kubebuilder:validation:Enum=Component;ComponentSet
	Kind string `json:"kind"`
	// Name is the object's name, or "*".
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^(\*|[a-z0-9]([-a-z0-9.]*[a-z0-9])?)$`
	Name string `json:"name"`
	// MatchLabels selects, with name "*", the objects of the kind that
	// carry every one of these labels.
	// +optional
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}

// ReceiverStatus says where a Receiver listens.
type ReceiverStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions hold Ready: the Secret and its token were found and the
	// path is served.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// WebhookPath is the path of the operator's receiver endpoint that
	// takes this Receiver's webhooks: /hook/ and the hex SHA-256 of the
	// token, the Receiver's name and its namespace, as Flux's Receiver.
	// +optional
	WebhookPath string `json:"webhookPath,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Path",type=string,JSONPath=`.status.webhookPath`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Receiver takes the webhooks of a Git host or a registry and, for each
// verified one, asks for a reconcile of the Components and ComponentSets
// it names (their annotation <operator>/reconcile-requested-at).
type Receiver struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ReceiverSpec   `json:"spec,omitempty"`
	Status ReceiverStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ReceiverList is a list of Receivers.
type ReceiverList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Receiver `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(GroupVersion, &Receiver{}, &ReceiverList{})
		return nil
	})
}
