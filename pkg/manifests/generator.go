package manifests

import (
	"context"

	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Generator renders the objects of one component installation.
//
// namespace and name are the component's (or its placement override). The
// context may carry a read client of the target cluster, its discovery client
// and information about the component (see ClientFrom, DiscoveryFrom and
// ComponentInfoFrom). A generator never writes to the API server. On error it
// returns no objects at all, never a partial list.
type Generator interface {
	Generate(ctx context.Context, namespace, name string, parameters Parameters) ([]client.Object, error)
}

// GeneratorFunc adapts a plain function to the Generator interface.
type GeneratorFunc func(ctx context.Context, namespace, name string, parameters Parameters) ([]client.Object, error)

// Generate calls f.
func (f GeneratorFunc) Generate(ctx context.Context, namespace, name string, parameters Parameters) ([]client.Object, error) {
	return f(ctx, namespace, name, parameters)
}

// Parameters are the inputs of a generator, usually a component's spec.
type Parameters interface {
	ToUnstructured() map[string]any
}

// Values is a Parameters backed by a plain map, as decoded from YAML or JSON.
type Values map[string]any

// ToUnstructured returns a copy of v so that a generator cannot change the
// caller's map.
func (v Values) ToUnstructured() map[string]any {
	if v == nil {
		return map[string]any{}
	}
	return deepCopyMap(v)
}

func deepCopyMap(in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = deepCopyValue(v)
	}
	return out
}

func deepCopyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return deepCopyMap(t)
	case Values:
		return deepCopyMap(t)
	case []any:
		s := make([]any, len(t))
		for i := range t {
			s[i] = deepCopyValue(t[i])
		}
		return s
	default:
		return v
	}
}

// ComponentInfo describes the component a generator renders for. Generators
// that mimic a release tool (Helm's .Release) read it from the context.
type ComponentInfo struct {
	// Object is the component itself.
	Object client.Object
	// OperatorName is the annotation prefix and field owner.
	OperatorName string
	// Revision counts the changes of the component that were rendered, from 1.
	Revision int64
	// FirstApply is true while the component is being installed: until it has
	// been ready once (Helm's .Release.IsInstall), over as many passes as that
	// takes.
	FirstApply bool
}

type contextKey int

const (
	clientKey contextKey = iota
	discoveryKey
	componentInfoKey
	sourceReportKey
)

// WithClient returns a context that carries a read client of the target cluster.
func WithClient(ctx context.Context, c client.Reader) context.Context {
	return context.WithValue(ctx, clientKey, c)
}

// ClientFrom returns the target cluster's read client carried by ctx, if any.
func ClientFrom(ctx context.Context) (client.Reader, bool) {
	c, ok := ctx.Value(clientKey).(client.Reader)
	return c, ok && c != nil
}

// WithDiscovery returns a context that carries the target cluster's discovery client.
func WithDiscovery(ctx context.Context, d discovery.DiscoveryInterface) context.Context {
	return context.WithValue(ctx, discoveryKey, d)
}

// DiscoveryFrom returns the target cluster's discovery client carried by ctx, if any.
func DiscoveryFrom(ctx context.Context) (discovery.DiscoveryInterface, bool) {
	d, ok := ctx.Value(discoveryKey).(discovery.DiscoveryInterface)
	return d, ok && d != nil
}

// WithComponentInfo returns a context that carries info about the component being rendered.
func WithComponentInfo(ctx context.Context, info ComponentInfo) context.Context {
	return context.WithValue(ctx, componentInfoKey, info)
}

// ComponentInfoFrom returns the component info carried by ctx, if any.
func ComponentInfoFrom(ctx context.Context) (ComponentInfo, bool) {
	info, ok := ctx.Value(componentInfoKey).(ComponentInfo)
	return info, ok
}

// MergeValues deep-merges overlay onto base and returns the result; neither
// input is changed. Maps merge key by key; any other value in overlay (a
// scalar, a list, or nil) replaces what base has, and a map in overlay
// replaces a scalar in base.
func MergeValues(base, overlay map[string]any) map[string]any {
	out := deepCopyMap(base)
	for k, v := range overlay {
		if vm, ok := v.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = MergeValues(bm, vm)
				continue
			}
		}
		out[k] = deepCopyValue(v)
	}
	return out
}
