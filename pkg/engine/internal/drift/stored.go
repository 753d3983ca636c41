package drift

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// StoredForms knows, for each object, its rendered form as the API server
// stores it, which is what drift detection compares with the live object.
// The API server leaves out a field whose Go type is not a pointer and whose
// value is the zero value (hostNetwork: false, minReadySeconds: 0), writes
// quantities in their canonical form (cpu: 0.5 is 500m), prunes what a
// CRD's schema does not declare and fills in what it allocates (a Service's
// clusterIP ""): compared as rendered, such an object would look drifted
// for ever, and each correction would be a write.
//
// A form is known exactly once the API server has answered a write of the
// render, or a dry run of it; until then, for the kinds the scheme knows, it
// is the rendered object decoded into its Go type and encoded again, as the
// API server decodes and encodes it. A form is kept as the few edits that
// turn the rendered object into it, per object, until the render changes.
type StoredForms struct {
	scheme *runtime.Scheme

	mu    sync.Mutex
	forms map[manifests.ObjectKey]storedForm
}

// storedForm is how the render of digest is stored: the rendered object
// with edits applied. exact says it comes from the API server's answer.
// want is that object, made once per form and shared by the passes that
// compare with it, which only read it.
type storedForm struct {
	digest string
	exact  bool
	edits  []fieldEdit
	want   map[string]any
}

// fieldEdit changes one field of a rendered object into its stored form:
// it takes value, is dropped (a field the API server prunes: it cannot be
// compared), or, with value absentOrZero, matches a live field that is
// absent or holds the zero value.
type fieldEdit struct {
	at    manifests.Pointer
	value any
	drop  bool
}

func NewStoredForms(scheme *runtime.Scheme) *StoredForms {
	return &StoredForms{scheme: scheme, forms: map[manifests.ObjectKey]storedForm{}}
}

// Rendered is a rendered object as the stored forms know it: its key, its
// kind, the digest of its render and its fields.
type Rendered struct {
	Key    manifests.ObjectKey
	GVK    schema.GroupVersionKind
	Digest string
	Object map[string]any
}

// Of returns the stored form of d (normalised JSON, see jsonvalue.Normalise)
// and whether it is exact. The form is made once per render digest; callers
// must not change it.
func (f *StoredForms) Of(d Rendered) (map[string]any, bool) {
	f.mu.Lock()
	form, ok := f.forms[d.Key]
	f.mu.Unlock()
	if ok && form.digest == d.Digest && form.want != nil {
		return form.want, form.exact
	}
	rendered := normalisedObject(d.Object)
	if !ok || form.digest != d.Digest {
		form = storedForm{digest: d.Digest}
		if reference, ok := f.decodedAsTyped(d.GVK, d.Object); ok {
			form.edits = editsTo(rendered, reference)
		}
	}
	form.want = applyEdits(rendered, form.edits)
	f.keep(d.Key, form)
	return form.want, form.exact
}

// keep records form unless the API server's answer (learn) replaced it
// since it was read.
func (f *StoredForms) keep(key manifests.ObjectKey, form storedForm) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if current, ok := f.forms[key]; ok && current.digest == form.digest && current.exact && !form.exact {
		return
	}
	f.forms[key] = form
}

// Learn records how the API server stored d: answer is its answer to a write
// of d, or to a dry run of that write.
func (f *StoredForms) Learn(d Rendered, answer map[string]any) {
	form := storedForm{digest: d.Digest, exact: true, edits: editsTo(normalisedObject(d.Object), normalisedObject(answer))}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forms[d.Key] = form
}

func (f *StoredForms) Forget(key manifests.ObjectKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.forms, key)
}

// decodedAsTyped decodes obj into the Go type the scheme has for gvk and
// encodes it again, as the API server does (case-sensitive field names,
// unknown fields dropped, omitempty zero values left out, quantities in
// canonical form). ok is false for kinds the scheme does not know, and for
// objects their type cannot hold (the API server will say why).
func (f *StoredForms) decodedAsTyped(gvk schema.GroupVersionKind, obj map[string]any) (map[string]any, bool) {
	if f.scheme == nil || !f.scheme.Recognizes(gvk) {
		return nil, false
	}
	typed, err := f.scheme.New(gvk)
	if err != nil {
		return nil, false
	}
	data, err := json.Marshal(obj)
	if err != nil || kjson.UnmarshalCaseSensitivePreserveInts(data, typed) != nil {
		return nil, false
	}
	if data, err = json.Marshal(typed); err != nil {
		return nil, false
	}
	var out map[string]any
	if json.Unmarshal(data, &out) != nil {
		return nil, false
	}
	return out, true
}

// normalisedObject is obj after a JSON round trip, or an empty object.
func normalisedObject(obj map[string]any) map[string]any {
	out, _ := jsonvalue.Normalise(obj).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

// editsTo returns the edits that turn rendered into its stored form, given
// reference, the object as the API server stores it (or would): every
// rendered field takes the reference's value; a rendered field the
// reference lacks matches an absent live field if it is a zero value, and
// is not compared otherwise; a null is never compared.
func editsTo(rendered, reference map[string]any) []fieldEdit {
	var edits []fieldEdit
	walkEdits(rendered, reference, nil, &edits)
	return edits
}

func walkEdits(rendered, reference any, at manifests.Pointer, edits *[]fieldEdit) {
	switch r := rendered.(type) {
	case map[string]any:
		ref, ok := reference.(map[string]any)
		if !ok {
			*edits = append(*edits, fieldEdit{at: at, value: reference})
			return
		}
		for _, k := range jsonvalue.SortedKeys(r) {
			child := append(slices.Clip(at), k)
			refValue, found := ref[k]
			switch {
			case found && r[k] != nil:
				walkEdits(r[k], refValue, child, edits)
			case !found && jsonvalue.IsZeroValue(r[k]) && !jsonvalue.IsMap(r[k]) && r[k] != nil:
				*edits = append(*edits, fieldEdit{at: child, value: jsonvalue.AbsentOrZero{}})
			case !found || r[k] == nil:
				*edits = append(*edits, fieldEdit{at: child, drop: true})
			}
		}
	case []any:
		ref, ok := reference.([]any)
		if !ok || len(ref) != len(r) {
			*edits = append(*edits, fieldEdit{at: at, value: reference})
			return
		}
		for i := range r {
			walkEdits(r[i], ref[i], append(slices.Clip(at), strconv.Itoa(i)), edits)
		}
	default:
		if !reflect.DeepEqual(rendered, reference) {
			*edits = append(*edits, fieldEdit{at: at, value: reference})
		}
	}
}

// applyEdits applies edits to obj, which it changes, and returns it.
func applyEdits(obj map[string]any, edits []fieldEdit) map[string]any {
	for _, e := range edits {
		if len(e.at) == 0 {
			continue
		}
		parent := jsonvalue.Lookup(obj, e.at[:len(e.at)-1])
		last := e.at[len(e.at)-1]
		switch container := parent.(type) {
		case map[string]any:
			if e.drop {
				delete(container, last)
			} else {
				container[last] = e.value
			}
		case []any:
			if i, err := strconv.Atoi(last); err == nil && i >= 0 && i < len(container) && !e.drop {
				container[i] = e.value
			}
		}
	}
	return obj
}
