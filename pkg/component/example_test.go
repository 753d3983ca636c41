package component_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The custom resource of the example operator, as `wavekit scaffold` lays
// it out in api/v1alpha1 (with controller-gen's deepcopy and CRD markers).

var groupVersion = schema.GroupVersion{Group: "greeter.example.com", Version: "v1alpha1"}

// GreeterSpec is what one Greeter installs: the generator's parameters.
type GreeterSpec struct {
	Message string `json:"message,omitempty"`
}

// ToUnstructured returns the spec as generator parameters.
func (s *GreeterSpec) ToUnstructured() map[string]any {
	values, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		return map[string]any{}
	}
	return values
}

// Greeter is one installation of the component; its status embeds
// component.Status, which the reconciler writes.
type Greeter struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GreeterSpec      `json:"spec,omitempty"`
	Status component.Status `json:"status,omitempty"`
}

// GetSpec returns the spec as the generator's parameters.
func (g *Greeter) GetSpec() manifests.Parameters { return &g.Spec }

// GetStatus returns the status every component embeds.
func (g *Greeter) GetStatus() *component.Status { return &g.Status }

// DeepCopyObject copies the Greeter (controller-gen writes this).
func (g *Greeter) DeepCopyObject() runtime.Object {
	out := *g
	g.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	g.Status.DeepCopyInto(&out.Status)
	return &out
}

// GreeterList is a list of Greeters.
type GreeterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Greeter `json:"items"`
}

// DeepCopyObject copies the list (controller-gen writes this).
func (l *GreeterList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Greeter, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*Greeter)
	}
	return &out
}

// greeterObjects renders a Greeter: a ServiceAccount in wave 0, then a
// ConfigMap in wave 1. A generator only renders; the reconciler applies.
func greeterObjects(operatorName string) manifests.Generator {
	return manifests.GeneratorFunc(func(ctx context.Context, namespace, name string, _ manifests.Parameters) ([]client.Object, error) {
		info, ok := manifests.ComponentInfoFrom(ctx)
		if !ok {
			return nil, fmt.Errorf("no component in the render context")
		}
		greeter := info.Object.(*Greeter)
		return []client.Object{
			&corev1.ServiceAccount{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
				ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			},
			&corev1.ConfigMap{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: metav1.ObjectMeta{
					Namespace: namespace, Name: name + "-config",
					Annotations: map[string]string{manifests.Key(operatorName, manifests.AnnotationApplyOrder): "1"},
				},
				Data: map[string]string{"message": greeter.Spec.Message},
			},
		}, nil
	})
}

// A minimal component operator: a scheme with the component's type, a
// generator, and a reconciler registered with a controller-runtime manager.
// The reconciler renders each Greeter, applies the objects in waves, and
// writes its status; deleting a Greeter deletes its objects in reverse. The
// manager runs it once started (mgr.Start(ctrl.SetupSignalHandler())),
// which needs a cluster with the Greeter CRD; the manager is built from
// ctrl.GetConfig() (the kubeconfig, or the pod's service account). Here it
// is built for an address nobody serves and not started, so the example
// runs without a cluster: what it shows is what the generator renders.
func ExampleNewReconciler() {
	const operatorName = "greeter.example.com"

	// The built-in kinds the generator renders, and the component's own
	// (an api package does this with its SchemeBuilder).
	types := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(types); err != nil {
		fmt.Println(err)
		return
	}
	types.AddKnownTypes(groupVersion, &Greeter{}, &GreeterList{})
	metav1.AddToGroupVersion(types, groupVersion)

	cfg := &rest.Config{Host: "https://127.0.0.1:1"} // ctrl.GetConfig() in an operator
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: types, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Every option has a default; these are the ones most operators tune.
	generator := greeterObjects(operatorName)
	r := component.NewReconciler[*Greeter](operatorName, generator, component.ReconcilerOptions{
		RequeueInterval: 30 * time.Minute,
		Timeout:         5 * time.Minute,
	})
	if err := r.SetupWithManager(mgr); err != nil {
		fmt.Println(err)
		return
	}

	// What the reconciler applies for a Greeter demo/hello, wave by wave.
	greeter := &Greeter{Spec: GreeterSpec{Message: "hi"}}
	greeter.Namespace, greeter.Name = "demo", "hello"
	ctx := manifests.WithComponentInfo(context.Background(), manifests.ComponentInfo{Object: greeter, OperatorName: operatorName})
	objects, err := generator.Generate(ctx, "demo", "hello", &greeter.Spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, obj := range objects {
		order := obj.GetAnnotations()[manifests.Key(operatorName, manifests.AnnotationApplyOrder)]
		fmt.Printf("%s %s apply-order %q\n", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), order)
	}
	// Output:
	// ServiceAccount hello apply-order ""
	// ConfigMap hello-config apply-order "1"
}
