package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// groupVersion is the API of the example's kind, WebApp.
var groupVersion = schema.GroupVersion{Group: "example.wavekit.dev", Version: "v1alpha1"}

// WebAppSpec is what one WebApp installs: a Deployment of image, and a
// PostgreSQL role and database for it on the server that adminSecretRef
// reaches.
type WebAppSpec struct {
	// Image of the Deployment.
	Image string `json:"image,omitempty"`
	// AdminSecretRef names the Secret of the WebApp's namespace with the
	// PostgreSQL server's admin credentials (host, port, user, password,
	// dbname, sslmode).
	AdminSecretRef string `json:"adminSecretRef"`
	// DatabaseHost and DatabasePort are where the Deployment reaches the
	// server (default postgres.default.svc and 5432).
	DatabaseHost string `json:"databaseHost,omitempty"`
	DatabasePort int    `json:"databasePort,omitempty"`
}

// ToUnstructured returns the spec as the generator's parameters.
func (s *WebAppSpec) ToUnstructured() map[string]any {
	values, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		return map[string]any{}
	}
	return values
}

// WebApp is one installation of the example component; its status embeds
// component.Status, which the reconciler writes.
type WebApp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WebAppSpec       `json:"spec,omitempty"`
	Status component.Status `json:"status,omitempty"`
}

// GetSpec returns the spec as the generator's parameters.
func (w *WebApp) GetSpec() manifests.Parameters { return &w.Spec }

// GetStatus returns the status every component embeds.
func (w *WebApp) GetStatus() *component.Status { return &w.Status }

// DeepCopyObject copies the WebApp (controller-gen writes this in an
// operator made by wavekit scaffold).
func (w *WebApp) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	w.Status.DeepCopyInto(&out.Status)
	return &out
}

// WebAppList is a list of WebApps.
type WebAppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WebApp `json:"items"`
}

// DeepCopyObject copies the list.
func (l *WebAppList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]WebApp, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*WebApp)
	}
	return &out
}

// addToScheme registers WebApp and WebAppList.
func addToScheme(s *runtime.Scheme) {
	s.AddKnownTypes(groupVersion, &WebApp{}, &WebAppList{})
	metav1.AddToGroupVersion(s, groupVersion)
}
