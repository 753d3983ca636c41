package manifests_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// greeterSpec is the spec of a component that greets: the parameters its
// generator reads.
type greeterSpec struct {
	Message  string `json:"message,omitempty"`
	Replicas int64  `json:"replicas,omitempty"`
}

// greeterGenerator renders a greeter's objects: a ServiceAccount in wave 0
// and a ConfigMap in wave 1 (its apply-order annotation), both in the
// component's namespace. It only renders; the engine writes.
type greeterGenerator struct {
	operatorName string
}

// Generate decodes the parameters into the typed spec and renders from it.
// On error it returns no objects at all.
func (g greeterGenerator) Generate(_ context.Context, namespace, name string, parameters manifests.Parameters) ([]client.Object, error) {
	var spec greeterSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(parameters.ToUnstructured(), &spec); err != nil {
		return nil, fmt.Errorf("greeter %s/%s: decoding parameters: %w", namespace, name, err)
	}
	if spec.Message == "" {
		spec.Message = "hello"
	}
	return []client.Object{
		&corev1.ServiceAccount{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		},
		&corev1.ConfigMap{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{
				Namespace: namespace, Name: name + "-config",
				Annotations: map[string]string{
					manifests.Key(g.operatorName, manifests.AnnotationApplyOrder): "1",
				},
			},
			Data: map[string]string{"message": spec.Message, "replicas": fmt.Sprint(spec.Replicas)},
		},
	}, nil
}

// A Generator written in Go: a type with a Generate method that renders a
// component's objects from its parameters. The component reconciler
// (component.NewReconciler) calls it with the component's spec; here it is
// called with plain Values, as decoded from YAML.
func ExampleGenerator() {
	var gen manifests.Generator = greeterGenerator{operatorName: "greeter.example.com"}
	objects, err := gen.Generate(context.Background(), "demo", "hello",
		manifests.Values{"message": "hi there", "replicas": int64(2)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, obj := range objects {
		order := obj.GetAnnotations()["greeter.example.com/apply-order"]
		if order == "" {
			order = "0"
		}
		fmt.Printf("%s %s/%s wave %s\n", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName(), order)
	}
	fmt.Println(objects[1].(*corev1.ConfigMap).Data)
	// Output:
	// ServiceAccount demo/hello wave 0
	// ConfigMap demo/hello-config wave 1
	// map[message:hi there replicas:2]
}

// A function is a Generator too, through GeneratorFunc: here one that reads
// the component it renders for from the context, as a generator that needs
// more than the spec does.
func ExampleGeneratorFunc() {
	gen := manifests.GeneratorFunc(func(ctx context.Context, namespace, name string, _ manifests.Parameters) ([]client.Object, error) {
		info, ok := manifests.ComponentInfoFrom(ctx)
		if !ok {
			return nil, fmt.Errorf("no component in the render context")
		}
		cm := &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Data:       map[string]string{"revision": fmt.Sprint(info.Revision)},
		}
		return []client.Object{cm}, nil
	})
	ctx := manifests.WithComponentInfo(context.Background(), manifests.ComponentInfo{OperatorName: "greeter.example.com", Revision: 3})
	objects, err := gen.Generate(ctx, "demo", "hello", manifests.Values{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(objects[0].GetName(), objects[0].(*corev1.ConfigMap).Data["revision"])
	// Output: hello 3
}
