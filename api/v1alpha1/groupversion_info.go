package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of the reference operator's API.
var GroupVersion = schema.GroupVersion{Group: "wavekit.dev", Version: "v1alpha1"}

var (
	// SchemeBuilder registers the types of this package.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the types of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &Component{}, &ComponentList{}, &ComponentSet{}, &ComponentSetList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
