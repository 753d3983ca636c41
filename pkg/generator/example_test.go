package generator_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/generator"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// greeter is a custom generator: a type with one method.
type greeter struct{}

// Generate returns one ConfigMap that greets the parameter "who".
func (greeter) Generate(_ context.Context, namespace, name string, parameters manifests.Parameters) ([]client.Object, error) {
	values := parameters.ToUnstructured()
	return []client.Object{&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Data:       map[string]string{"greeting": fmt.Sprintf("hello, %v", values["who"])},
	}}, nil
}

// A custom generator, given default parameters and a label on every object.
func Example_customGenerator() {
	g := generator.WithObjectTransformers(
		generator.WithParameterTransformers(greeter{}, generator.DefaultValues(map[string]any{"who": "world"})),
		generator.AddLabels(map[string]string{"app.kubernetes.io/part-of": "demo"}),
	)
	for _, parameters := range []manifests.Values{{}, {"who": "wavekit"}} {
		objects, err := g.Generate(context.Background(), "default", "hello", parameters)
		if err != nil {
			fmt.Println(err)
			return
		}
		cm := objects[0].(*corev1.ConfigMap)
		fmt.Println(cm.Namespace, cm.Name, cm.Data["greeting"], cm.Labels)
	}
	// Output:
	// default hello hello, world map[app.kubernetes.io/part-of:demo]
	// default hello hello, wavekit map[app.kubernetes.io/part-of:demo]
}
