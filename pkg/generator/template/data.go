package template

import (
	"context"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Data is dot in every template.
type Data struct {
	// Values are the parameters' ToUnstructured(), never nil.
	Values map[string]any
	// Name is the component's name.
	Name string
	// Namespace is the component's namespace.
	Namespace string
	// Component is the component info carried by the context, or nil.
	Component *manifests.ComponentInfo
}

// NewData returns the template data of one Generate call.
func NewData(ctx context.Context, namespace, name string, parameters manifests.Parameters) Data {
	data := Data{Values: map[string]any{}, Name: name, Namespace: namespace}
	if parameters != nil {
		if values := parameters.ToUnstructured(); values != nil {
			data.Values = values
		}
	}
	if info, ok := manifests.ComponentInfoFrom(ctx); ok {
		data.Component = &info
	}
	return data
}
