package external

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Version is the API version of the objects that stand for external
// dependents in a render: apiVersion external.wavekit.dev/v1.
const Version = "v1"

// Object is how a render names one external dependent, beside its
// Kubernetes objects: a Go generator builds it with New, a chart or a
// template writes it as YAML:
//
//	apiVersion: external.wavekit.dev/v1
//	kind: PostgresDatabase            # the Provider registered for it
//	metadata:
//	  name: app
//	  annotations:
//	    <operator>/apply-order: "0"   # and delete-order, reconcile-policy, delete-policy
//	spec: {owner: app}                # the desired state, compared with what is observed
//	credentialsFrom: postgres-admin   # Secret with the external API's credentials
//	secret:                           # the dependent's own Secret
//	  name: app-db
//	  generate: [password]            # random values, made once
//	  data: {username: app}           # fixed values
//	pollInterval: 30s
//
// The engine never applies it; pkg/external reads it into a Dependent.
type Object struct {
	Kind, Name string
	// Annotations carry the apply and delete orders and the policies, as
	// on any object.
	Annotations map[string]string
	Spec        map[string]any
	// CredentialsFrom names the Secret of the component's namespace that
	// holds the credentials of the external API.
	CredentialsFrom string
	// Secret, where set, is the dependent's own Secret.
	Secret *SecretSpec
	// PollInterval is how often the poller observes it; 0 for the
	// reconciler's default.
	PollInterval string
}

// SecretSpec describes the Secret of the component that holds what a
// dependent's users need (a database's user name and password): written
// before the resource is created, never in status, Events or logs.
type SecretSpec struct {
	// Name of the Secret, in the component's namespace.
	Name string `json:"name"`
	// Generate lists keys whose values are random (26 base32 characters,
	// 128 bits), made once and kept.
	Generate []string `json:"generate,omitempty"`
	// Data holds fixed values.
	Data map[string]string `json:"data,omitempty"`
}

// New returns the render's object for o.
func New(o Object) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(manifests.ExternalGroup + "/" + Version)
	u.SetKind(o.Kind)
	u.SetName(o.Name)
	if len(o.Annotations) > 0 {
		u.SetAnnotations(o.Annotations)
	}
	u.Object["spec"] = runtimeJSON(o.Spec)
	if o.CredentialsFrom != "" {
		u.Object["credentialsFrom"] = o.CredentialsFrom
	}
	if o.Secret != nil {
		secret := map[string]any{"name": o.Secret.Name}
		if len(o.Secret.Generate) > 0 {
			keys := make([]any, len(o.Secret.Generate))
			for i, k := range o.Secret.Generate {
				keys[i] = k
			}
			secret["generate"] = keys
		}
		if len(o.Secret.Data) > 0 {
			data := map[string]any{}
			for k, v := range o.Secret.Data {
				data[k] = v
			}
			secret["data"] = data
		}
		u.Object["secret"] = secret
	}
	if o.PollInterval != "" {
		u.Object["pollInterval"] = o.PollInterval
	}
	return u
}
