package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ProviderType is where a Provider sends alerts.
// +kubebuilder:validation:Enum=generic;generic-hmac;slack;msteams;cloudevents;github
type ProviderType string

// Provider types.
const (
	// ProviderGeneric posts the event as JSON to spec.address (Flux's
	// generic); a Secret's token is sent as a bearer token.
	ProviderGeneric ProviderType = "generic"
	// ProviderGenericHMAC is generic, signed: X-Signature: sha256=<hex of
	// HMAC-SHA256(token, body)> (Flux's generic-hmac).
	ProviderGenericHMAC ProviderType = "generic-hmac"
	// ProviderSlack posts to a Slack incoming webhook.
	ProviderSlack ProviderType = "slack"
	// ProviderMSTeams posts an Adaptive Card to a Microsoft Teams
	// workflow's webhook.
	ProviderMSTeams ProviderType = "msteams"
	// ProviderCloudEvents posts a CloudEvent 1.0, structured mode.
	ProviderCloudEvents ProviderType = "cloudevents"
	// ProviderGitHub sets commit statuses on the repository of
	// spec.address, for Components whose source revision is a Git commit.
	ProviderGitHub ProviderType = "github"
)

// Keys of a Provider's Secret.
const (
	// ProviderAddressKey holds the URL, in place of spec.address: a Slack
	// or Teams webhook URL is a credential.
	ProviderAddressKey = "address"
	// ProviderTokenKey holds the token: the bearer token of generic and
	// cloudevents, the HMAC key of generic-hmac, the API token of github.
	ProviderTokenKey = "token"
)

// ProviderSpec says where and how alerts are sent.
// +kubebuilder:validation:XValidation:rule="has(self.address) || has(self.secretRef)",message="give spec.address, or a spec.secretRef whose Secret holds the address"
// +kubebuilder:validation:XValidation:rule="self.type != 'github' || has(self.address)",message="a github Provider needs spec.address: the repository's URL, https://github.com/OWNER/REPO"
// +kubebuilder:validation:XValidation:rule="self.type != 'generic-hmac' || has(self.secretRef)",message="a generic-hmac Provider needs spec.secretRef: a Secret whose token is the HMAC key"
// +kubebuilder:validation:XValidation:rule="self.type == 'github' || !has(self.apiURL)",message="spec.apiURL is for github Providers only"
// +kubebuilder:validation:XValidation:rule="self.type == 'slack' || (!has(self.channel) && !has(self.username))",message="spec.channel and spec.username are for slack Providers only"
type ProviderSpec struct {
	// Type is where alerts go: generic, generic-hmac, slack, msteams,
	// cloudevents or github.
	Type ProviderType `json:"type"`
	// Address is the URL alerts are posted to, or for github the
	// repository's URL. A Slack or Teams webhook URL is a credential: put
	// it in the Secret (key address) instead.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^(https?|ssh)://|^[^@/]+@[^:]+:`
	// +optional
	Address string `json:"address,omitempty"`
	// APIURL is the GitHub API of a github Provider (default
	// https://api.github.com; GitHub Enterprise Server:
	// https://HOST/api/v3).
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://`
	// +optional
	APIURL string `json:"apiURL,omitempty"`
	// Channel and Username override a Slack webhook's, where Slack still
	// allows it.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Channel string `json:"channel,omitempty"`
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Username string `json:"username,omitempty"`
	// SecretRef names a Secret of the Provider's own namespace whose keys
	// address (the URL, in place of spec.address) and token (a bearer
	// token; the HMAC key of generic-hmac; the API token of github) the
	// Provider uses. It is read when an alert is sent, under the lockdown
	// as the namespace's service account, and never kept.
	// +optional
	SecretRef *LocalSecretReference `json:"secretRef,omitempty"`
	// Timeout bounds one try to send an alert (default 15s).
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
	// Suspend stops sending through this Provider.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// LocalSecretReference names a Secret of the referrer's own namespace.
type LocalSecretReference struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// +kubebuilder:object:root=true
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Suspended",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Provider is a receiver of alerts: a webhook, a chat, a Git host's
// commit statuses. Alerts of its namespace send to it.
type Provider struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ProviderSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// ProviderList is a list of Providers.
type ProviderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Provider `json:"items"`
}

// EventSeverity is the least severity an Alert sends.
// +kubebuilder:validation:Enum=info;error
type EventSeverity string

// Event severities.
const (
	// SeverityInfo sends every event: progress (Ready, a drift corrected,
	// a wave done) and errors.
	SeverityInfo EventSeverity = "info"
	// SeverityError sends what needs someone: failures, stalls, rollbacks,
	// blocked deletions, drift left, held waves, unreachable clusters.
	SeverityError EventSeverity = "error"
)

// EventKind is what happened, an Alert's trigger.
// +kubebuilder:validation:Enum=Ready;Failed;Stalled;RolledBack;DeletionBlocked;DriftCorrected;DriftReported;WaveHeld;WaveDone;ClusterUnreachable
type EventKind string

// AlertSpec says which events of the Alert's namespace go to which
// Provider.
type AlertSpec struct {
	// ProviderRef names the Provider, of the Alert's own namespace.
	ProviderRef LocalProviderReference `json:"providerRef"`
	// EventSources are the objects of the Alert's own namespace whose
	// events it sends. An Alert never sees another namespace's objects.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	EventSources []EventSource `json:"eventSources"`
	// EventSeverity is info (every event, the default) or error (only what
	// needs someone).
	// +optional
	EventSeverity EventSeverity `json:"eventSeverity,omitempty"`
	// Events are what happened that it sends (Argo CD's triggers); empty:
	// every kind of event of its severity.
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Events []EventKind `json:"events,omitempty"`
	// InclusionList are regular expressions (Go's syntax) of which an
	// event's message must match one to be sent; empty: every message.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=1024
	// +optional
	InclusionList []string `json:"inclusionList,omitempty"`
	// ExclusionList are regular expressions of which an event's message
	// must match none to be sent; it wins over InclusionList.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=1024
	// +optional
	ExclusionList []string `json:"exclusionList,omitempty"`
	// Suspend stops sending this Alert's events.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// LocalProviderReference names a Provider of the Alert's own namespace.
type LocalProviderReference struct {
	// Name of the Provider.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// EventSource selects objects of the Alert's namespace by kind, and by
// name or labels.
// +kubebuilder:validation:XValidation:rule="!has(self.matchLabels) || !has(self.name) || self.name == '*'",message="matchLabels selects among every object of the kind: leave name out, or give *"
// +kubebuilder:validation:XValidation:rule="has(self.apiVersion) || self.kind in ['Component', 'ComponentSet']",message="kind is Component or ComponentSet, or a kind a ComponentDefinition defines, with its apiVersion"
type EventSource struct {
	// APIVersion is the group/version of a kind a ComponentDefinition
	// defines (platform.example.com/v1alpha1), whose instances' events the
	// Alert sends; without it, kind is one of the operator's own.
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^[a-z0-9.-]+/[a-z0-9]+$`
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind of the objects: Component or ComponentSet, or, with apiVersion,
	// a kind a ComponentDefinition defines.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Z][a-zA-Z0-9]*$`
	Kind string `json:"kind"`
	// Name of the object, or * for every object of the kind (the
	// default).
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`
	// MatchLabels selects the objects that carry each of these labels.
	// +optional
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.providerRef.name`
// +kubebuilder:printcolumn:name="Severity",type=string,JSONPath=`.spec.eventSeverity`
// +kubebuilder:printcolumn:name="Suspended",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Alert sends the events of objects of its namespace (Components,
// ComponentSets) to a Provider of its namespace, as Flux's Alert does.
type Alert struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec AlertSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// AlertList is a list of Alerts.
type AlertList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Alert `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(GroupVersion, &Provider{}, &ProviderList{}, &Alert{}, &AlertList{})
		return nil
	})
}
