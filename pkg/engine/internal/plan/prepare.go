package plan

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/drift"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Desired is one rendered object after validation and normalisation.
type Desired struct {
	Object       *unstructured.Unstructured
	Key          manifests.ObjectKey
	GVK          schema.GroupVersionKind
	Namespaced   bool
	Policies     manifests.ObjectPolicies
	Stage        kinds.Stage
	Digest       string
	ManagedTypes []manifests.TypeInfo
	// Ignore are the paths drift detection skips and, once other field
	// managers own them, writes leave alone.
	Ignore []manifests.Pointer
}

// Rendered is d as the stored forms know it.
func (d *Desired) Rendered() drift.Rendered {
	return drift.Rendered{Key: d.Key, GVK: d.GVK, Digest: d.Digest, Object: d.Object.Object}
}

// Preparer validates rendered objects and turns them into desired objects.
type Preparer struct {
	Prefix     string
	Namespace  string
	Generation int64
	Defaults   manifests.Defaults
	Scheme     *runtime.Scheme
	Mapper     meta.RESTMapper
	// UnknownAsRendered keeps the namespace of an object whose kind neither
	// the mapper nor a CRD among the objects knows, instead of refusing it:
	// for checks made without the API server that will serve it.
	UnknownAsRendered bool
	// Ignore are the owner's drift ignore rules.
	Ignore []drift.IgnoreRule
	// TestRun names the test run tests are prepared for: their digests
	// hold it, so that each run creates its tests anew, once.
	TestRun string
	// HandedOver says that the objects are the preparer's to change
	// (pkg/internal/handover): it does not copy them first.
	HandedOver bool
}

// Prepare validates every object and returns them in a stable order; one bad
// object fails the whole list (errors.Join of every problem found).
func (p *Preparer) Prepare(objects []client.Object) ([]*Desired, error) {
	var errs []error
	var result []*Desired
	for i, obj := range objects {
		d, err := p.Normalise(i, obj)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		result = append(result, d)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := p.resolveScopes(result); err != nil {
		return nil, err
	}
	if err := p.checkDuplicates(result); err != nil {
		return nil, err
	}
	if err := p.classify(result); err != nil {
		return nil, err
	}
	for _, d := range result {
		if err := p.Finish(d); err != nil {
			return nil, err
		}
	}
	return result, nil
}

func (p *Preparer) Normalise(index int, obj client.Object) (*Desired, error) {
	u, err := p.toUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("object %d: %w", index+1, err)
	}
	gvk := u.GroupVersionKind()
	name := u.GetName()
	describe := func() string { return fmt.Sprintf("object %d (%s %s)", index+1, u.GetAPIVersion(), u.GetKind()) }
	switch {
	case u.GetAPIVersion() == "":
		return nil, fmt.Errorf("%s %q: apiVersion is missing", describe(), name)
	case u.GetKind() == "":
		return nil, fmt.Errorf("%s %q: kind is missing", describe(), name)
	case u.GetGenerateName() != "" && name == "":
		return nil, fmt.Errorf("%s: generateName %q is not supported, every object needs a fixed name", describe(), u.GetGenerateName())
	case name == "":
		return nil, fmt.Errorf("%s: metadata.name is missing", describe())
	case u.GetGenerateName() != "":
		return nil, fmt.Errorf("%s %q: generateName is not supported", describe(), name)
	}
	dropEmptyFields(u)
	if err := foldStringData(u); err != nil {
		return nil, fmt.Errorf("%s %q: %w", describe(), name, err)
	}
	key := manifests.ObjectKey{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: name}
	return &Desired{Object: u, Key: key, GVK: gvk}, nil
}

func (p *Preparer) toUnstructured(obj client.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if p.HandedOver {
			return u, nil
		}
		return u.DeepCopy(), nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: content}
	if u.GetKind() == "" && p.Scheme != nil {
		gvk, err := apiutil.GVKForObject(obj, p.Scheme)
		if err != nil {
			return nil, fmt.Errorf("finding the kind of %T: %w", obj, err)
		}
		u.SetGroupVersionKind(gvk)
	}
	return u, nil
}

// dropEmptyFields removes what typed objects carry when converted but never
// mean: a null creationTimestamp and an empty status.
func dropEmptyFields(u *unstructured.Unstructured) {
	if ts, found, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "creationTimestamp"); found && ts == nil {
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	}
	if status, found, _ := unstructured.NestedMap(u.Object, "status"); found && len(status) == 0 {
		unstructured.RemoveNestedField(u.Object, "status")
	}
}

// foldStringData moves a Secret's stringData into data, so that the digest
// and server-side apply see one stable form.
func foldStringData(u *unstructured.Unstructured) error {
	if u.GroupVersionKind().Group != "" || u.GetKind() != "Secret" {
		return nil
	}
	stringData, found, err := unstructured.NestedStringMap(u.Object, "stringData")
	if err != nil {
		return fmt.Errorf("stringData: %w", err)
	}
	if !found {
		return nil
	}
	data, _, err := unstructured.NestedStringMap(u.Object, "data")
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if data == nil {
		data = map[string]string{}
	}
	for k, v := range stringData {
		data[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	unstructured.RemoveNestedField(u.Object, "stringData")
	return unstructured.SetNestedStringMap(u.Object, data, "data")
}

// resolveScopes sets or clears each object's namespace, learning the scope
// of kinds that are not served yet from CRDs among the objects.
func (p *Preparer) resolveScopes(objects []*Desired) error {
	crdScopes := map[schema.GroupKind]bool{}
	for _, d := range objects {
		if kinds.IsCRD(d.Key.Group, d.Key.Kind) {
			group, _, _ := unstructured.NestedString(d.Object.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(d.Object.Object, "spec", "names", "kind")
			scope, _, _ := unstructured.NestedString(d.Object.Object, "spec", "scope")
			crdScopes[schema.GroupKind{Group: group, Kind: kind}] = scope == "Namespaced"
		}
	}
	type scope struct {
		namespaced bool
		err        error
	}
	known := map[schema.GroupVersionKind]scope{} // one REST mapping a kind, not one an object
	var errs []error
	for _, d := range objects {
		s, ok := known[d.GVK]
		if !ok {
			s.namespaced, s.err = p.isNamespaced(d.GVK, crdScopes)
			known[d.GVK] = s
		}
		namespaced, err := s.namespaced, s.err
		var notServed *notServedError
		if errors.As(err, &notServed) && p.UnknownAsRendered {
			d.Namespaced = d.Object.GetNamespace() != ""
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.Key, err))
			continue
		}
		d.Namespaced = namespaced
		switch {
		case namespaced && d.Object.GetNamespace() == "":
			d.Object.SetNamespace(p.Namespace)
		case !namespaced:
			d.Object.SetNamespace("")
		}
		d.Key.Namespace = d.Object.GetNamespace()
	}
	return errors.Join(errs...)
}

func (p *Preparer) isNamespaced(gvk schema.GroupVersionKind, crdScopes map[schema.GroupKind]bool) (bool, error) {
	if namespaced, ok := crdScopes[gvk.GroupKind()]; ok {
		return namespaced, nil
	}
	mapping, err := p.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		return false, &notServedError{gvk: gvk}
	}
	if err != nil {
		return false, fmt.Errorf("finding the scope of %s: %w", gvk, err)
	}
	return mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// notServedError says that a kind is neither served nor defined by a CRD
// among the objects.
type notServedError struct{ gvk schema.GroupVersionKind }

func (e *notServedError) Error() string {
	return fmt.Sprintf("the API server does not serve %s and no CRD among the manifests defines it", e.gvk)
}

func (p *Preparer) checkDuplicates(objects []*Desired) error {
	seen := make(map[manifests.ObjectKey]bool, len(objects))
	var errs []error
	for _, d := range objects {
		if seen[d.Key] {
			errs = append(errs, fmt.Errorf("%s: rendered more than once", d.Key))
		}
		seen[d.Key] = true
	}
	return errors.Join(errs...)
}

// classify parses policies, assigns stages and checks orders that could never work.
func (p *Preparer) classify(objects []*Desired) error {
	var served []manifests.TypeInfo // types served by the component's own CRDs and APIServices
	var servedOrders []int16        // the apply order of the definition that serves each
	var errs []error
	for _, d := range objects {
		annotations, describe := ownAnnotationsOf(d.Object, p.Prefix), d.Key.String()
		policies, err := manifests.ParsePolicies(p.Prefix, describe, annotations, p.Defaults)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		d.Policies = policies
		if d.Ignore, err = drift.IgnoredPaths(p.Prefix, d.Object, annotations, p.Ignore, describe); err != nil {
			errs = append(errs, err)
			continue
		}
		d.Stage = kinds.StageOf(d.Key.Group, d.Key.Kind)
		d.ManagedTypes = managedTypesOf(d.Object)
		for _, t := range d.ManagedTypes {
			served, servedOrders = append(served, t), append(servedOrders, policies.ApplyOrder)
		}
		if policies.PurgeOrder != nil && (kinds.IsNamespace(d.Key.Group, d.Key.Kind) || d.ManagedTypes != nil) {
			errs = append(errs, fmt.Errorf("%s: annotation %s is not allowed on a %s", d.Key, manifests.Key(p.Prefix, manifests.AnnotationPurgeOrder), d.Key.Kind))
		}
		if policies.DeleteHook != "" && policies.TestHook != "" {
			errs = append(errs, fmt.Errorf("%s: annotations %s and %s exclude each other: an object runs on deletion or in a test run", d.Key,
				manifests.Key(p.Prefix, manifests.AnnotationDeleteHook), manifests.Key(p.Prefix, manifests.AnnotationTestHook)))
		}
		if policies.PurgeOrder != nil && *policies.PurgeOrder < policies.ApplyOrder {
			errs = append(errs, fmt.Errorf("%s: purge order %d is before its apply order %d", d.Key, *policies.PurgeOrder, policies.ApplyOrder))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, d := range objects {
		i, ok := kinds.ServedType(served, d.Key.Group, d.Key.Kind)
		if !ok {
			continue
		}
		order := servedOrders[i]
		d.Stage = kinds.StageManagedInstances
		if d.Policies.ApplyOrder < order {
			errs = append(errs, fmt.Errorf("%s: apply order %d is before the order %d of the definition that serves its type", d.Key, d.Policies.ApplyOrder, order))
		}
	}
	return errors.Join(errs...)
}

// ownAnnotationsOf returns the annotations of u under prefix/, the only
// ones its policies and ignored fields are read from, as GetAnnotations
// reads them (a null value is "", and a value that is not a string makes
// the object's annotations unreadable: none), without copying the others:
// every object is classified on every pass, and most carry none of ours.
func ownAnnotationsOf(u *unstructured.Unstructured, prefix string) map[string]string {
	metadata, _ := u.Object["metadata"].(map[string]any)
	annotations, _ := metadata["annotations"].(map[string]any)
	var own map[string]string
	for key, value := range annotations {
		text, isString := value.(string)
		if !isString && value != nil {
			return nil
		}
		if len(key) > len(prefix) && key[len(prefix)] == '/' && strings.HasPrefix(key, prefix) {
			if own == nil {
				own = map[string]string{}
			}
			own[key] = text
		}
	}
	return own
}

// managedTypesOf returns the types whose instances a CRD or APIService serves.
func managedTypesOf(u *unstructured.Unstructured) []manifests.TypeInfo {
	gvk := u.GroupVersionKind()
	switch {
	case kinds.IsCRD(gvk.Group, gvk.Kind):
		group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
		return []manifests.TypeInfo{{Group: group, Kind: kind}}
	case kinds.IsAPIService(gvk.Group, gvk.Kind):
		group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
		return []manifests.TypeInfo{{Group: group, Kind: "*"}}
	}
	return nil
}

// Finish computes the digest of the object as rendered (plus the component
// generation where the reconcile policy asks for it, and a test's run).
func (p *Preparer) Finish(d *Desired) error {
	buf := digestBuffers.Get().(*[]byte)
	defer digestBuffers.Put(buf)
	data, err := jsonvalue.Append((*buf)[:0], d.Object.Object)
	if err != nil {
		return fmt.Errorf("%s: encoding: %w", d.Key, err)
	}
	*buf = data
	sum := sha256.New()
	sum.Write(data)
	if d.Policies.Reconcile == manifests.ReconcileOnObjectOrComponentChange {
		sum.Write([]byte("\x00generation=" + strconv.FormatInt(p.Generation, 10)))
	}
	if d.Policies.TestHook != "" {
		sum.Write([]byte("\x00test-run=" + p.TestRun))
	}
	d.Digest = hex.EncodeToString(sum.Sum(nil)[:manifests.DigestBytes])
	return nil
}

// digestBuffers hold the encodings that finish digests, which it writes
// for every object on every pass.
var digestBuffers = sync.Pool{New: func() any { return new([]byte) }}

// SortForApply orders objects by wave, stage, then key, so that every run
// plans the same sequence.
func SortForApply(objects []*Desired) {
	slices.SortStableFunc(objects, func(a, b *Desired) int {
		if a.Policies.ApplyOrder != b.Policies.ApplyOrder {
			return int(a.Policies.ApplyOrder) - int(b.Policies.ApplyOrder)
		}
		if a.Stage != b.Stage {
			return int(a.Stage) - int(b.Stage)
		}
		return kinds.CompareKeys(a.Key, b.Key)
	})
}

// ByKey indexes desired objects by their key.
func ByKey(objs []*Desired) map[manifests.ObjectKey]*Desired {
	out := make(map[manifests.ObjectKey]*Desired, len(objs))
	for _, d := range objs {
		out[d.Key] = d
	}
	return out
}
