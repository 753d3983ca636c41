package dashboard

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// record is what the page knows of one component: its identity, the few
// fields of its spec the page shows, and its status. It holds nothing of
// spec.values or spec.valuesFrom.
type record struct {
	kind      kindInfo
	namespace string
	name      string
	uid       string
	created   time.Time
	deleting  bool
	suspended bool
	// requestedAt is the value of the reconcile-requested-at annotation.
	requestedAt string
	// generation is metadata.generation, to tell whether Ready is current.
	generation int64
	// member says, for a component a set controls, which set, cluster and
	// wave; nil for others.
	member    *membership
	source    string
	dependsOn []reference
	drift     manifests.DriftSettings
	status    component.Status
	// lastChange is the newest time the status records.
	lastChange time.Time
	waves      []wave
	ready      metav1.Condition
	// head is the start of the component's line in the overview, made by
	// the first request that shows it (a record never changes: a change
	// of the component makes a new one).
	head struct {
		once sync.Once
		html template.HTML
	}
}

// reference names another component.
type reference struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// specFields are the parts of a component's spec the page reads.
type specFields struct {
	Suspend bool   `json:"suspend"`
	Source  string `json:"source"`
	Path    string `json:"path"`
	Chart   *struct {
		Repository string `json:"repository"`
		Name       string `json:"name"`
		Version    string `json:"version"`
	} `json:"chart"`
	Git *struct {
		URL  string `json:"url"`
		Path string `json:"path"`
	} `json:"git"`
	SourceRef *struct {
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"sourceRef"`
	DependsOn []reference             `json:"dependsOn"`
	Drift     manifests.DriftSettings `json:"drift"`
}

// toUnstructured returns the object's fields as a map; typed objects are
// converted.
func toUnstructured(obj any) (map[string]any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.Object, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", obj, err)
	}
	return m, nil
}

// newRecord reads one component; with keys, the set that controls it. Only
// the spec's source, dependsOn, suspend and drift fields are decoded.
func newRecord(kind kindInfo, obj map[string]any, keys *memberKeys) (*record, error) {
	u := unstructured.Unstructured{Object: obj}
	r := &record{kind: kind, namespace: u.GetNamespace(), name: u.GetName(), uid: string(u.GetUID()),
		created: u.GetCreationTimestamp().Time, deleting: u.GetDeletionTimestamp() != nil, generation: u.GetGeneration(),
		member: keys.of(&u), requestedAt: reconcileRequest(u.GetAnnotations())}
	var spec specFields
	if m, ok := obj["spec"].(map[string]any); ok && !kind.defined {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(pick(m, "suspend", "source", "path", "chart", "git", "sourceRef", "dependsOn", "drift"), &spec); err != nil {
			return nil, fmt.Errorf("reading the spec of %s/%s: %w", r.namespace, r.name, err)
		}
	}
	if m, ok := obj["status"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &r.status); err != nil {
			return nil, fmt.Errorf("reading the status of %s/%s: %w", r.namespace, r.name, err)
		}
	}
	r.suspended, r.drift = spec.Suspend, spec.Drift
	if kind.defined {
		r.suspended = instanceSuspended(u.GetAnnotations())
	}
	r.source = describeSource(spec, r.status.Source)
	r.dependsOn = spec.DependsOn
	for i := range r.dependsOn {
		if r.dependsOn[i].Namespace == "" {
			r.dependsOn[i].Namespace = r.namespace
		}
		if r.dependsOn[i].Kind == "" {
			r.dependsOn[i].Kind = kind.gvk.Kind
		}
	}
	r.waves = buildWaves(r.status.Inventory, r.status.Externals)
	r.ready = findCondition(r.status.Conditions, component.ConditionReady)
	r.lastChange = lastChange(r)
	return r, nil
}

// annotationSuspend is the suffix of the annotation <operator>/suspend
// that suspends an instance of a defined kind (docs/definitions.md).
const annotationSuspend = "suspend"

// instanceSuspended tells whether an instance's annotations suspend it,
// whatever the operator's name.
func instanceSuspended(annotations map[string]string) bool {
	for k, v := range annotations {
		if strings.HasSuffix(k, "/"+annotationSuspend) && v == "true" {
			return true
		}
	}
	return false
}

// reconcileRequest is the value of the annotation that asks the operator
// for a pass, <operator-name>/reconcile-requested-at, whatever the name.
func reconcileRequest(annotations map[string]string) string {
	for k, v := range annotations {
		if strings.HasSuffix(k, "/"+component.AnnotationReconcileRequestedAt) {
			return v
		}
	}
	return ""
}

// pick returns the entries of m with the given keys.
func pick(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// describeSource says where a component's objects come from: the chart and
// its version, the Git repository and path, the template folder or
// kustomization, or the Flux source.
func describeSource(spec specFields, applied *manifests.SourceInfo) string {
	var parts []string
	switch {
	case spec.Chart != nil:
		parts = append(parts, "chart "+spec.Chart.Name)
		if spec.Chart.Version != "" {
			parts = append(parts, spec.Chart.Version)
		}
	case spec.Git != nil:
		parts = append(parts, "git "+spec.Git.URL)
		if spec.Git.Path != "" {
			parts = append(parts, "path "+spec.Git.Path)
		}
	case spec.SourceRef != nil:
		parts = append(parts, spec.SourceRef.Kind+" "+spec.SourceRef.Name)
	case spec.Source != "":
		parts = append(parts, "source "+spec.Source)
	}
	if spec.Path != "" {
		parts = append(parts, "path "+spec.Path)
	}
	if applied != nil && applied.Revision != "" {
		parts = append(parts, "@ "+applied.Revision)
	}
	if len(parts) == 0 && applied != nil {
		return applied.URL
	}
	return strings.Join(parts, " ")
}

// findCondition returns the condition of the type, or one of status Unknown.
func findCondition(conditions []metav1.Condition, kind string) metav1.Condition {
	for _, c := range conditions {
		if c.Type == kind {
			return c
		}
	}
	return metav1.Condition{Type: kind, Status: metav1.ConditionUnknown}
}

// lastChange is the newest transition or attempt time of the status, else
// the creation time.
func lastChange(r *record) time.Time {
	newest := r.created
	for _, c := range r.status.Conditions {
		if c.LastTransitionTime.After(newest) {
			newest = c.LastTransitionTime.Time
		}
	}
	if a := r.status.Attempt; a != nil {
		if a.Started.After(newest) {
			newest = a.Started.Time
		}
		if a.Finished != nil && a.Finished.After(newest) {
			newest = a.Finished.Time
		}
	}
	return newest
}

// state is the component's state as the overview shows it.
func (r *record) state() string {
	if r.status.State == "" {
		return string(component.StatePending)
	}
	return string(r.status.State)
}

// wavesDone counts the waves whose every object is ready.
func (r *record) wavesDone() int {
	done := 0
	for _, w := range r.waves {
		if w.done() {
			done++
		}
	}
	return done
}

// key identifies a component among every kind the page shows.
func (r *record) key() string { return recordKey(r.kind.key, r.namespace, r.name) }

// recordKey is the key of a component of the kind key in namespace.
func recordKey(kindKey, namespace, name string) string {
	return kindKey + "/" + namespace + "/" + name
}

// sortRecords orders records by namespace, name and kind.
func sortRecords(records []*record) {
	sortNamed(records, func(r *record) [3]string { return [3]string{r.namespace, r.name, r.kind.key} })
}

// sortSets orders sets by namespace, name and kind.
func sortSets(sets []*setRecord) {
	sortNamed(sets, func(r *setRecord) [3]string { return [3]string{r.namespace, r.name, r.kind.key} })
}

// sortNamed orders items by what id returns: namespace, name, kind.
func sortNamed[T any](items []T, id func(T) [3]string) {
	slices.SortFunc(items, func(a, b T) int {
		x, y := id(a), id(b)
		return cmp.Or(strings.Compare(x[0], y[0]), strings.Compare(x[1], y[1]), strings.Compare(x[2], y[2]))
	})
}

// kindInfo is one component kind the page shows.
type kindInfo struct {
	gvk schema.GroupVersionKind
	// resource is the kind's plural resource name, for access reviews.
	resource string
	// key is "kind.group" in lower case: the page's URLs and kubectl's name
	// of the kind.
	key string
	// defined is a kind a definition defines: its spec is the values of its
	// source, not a Component's spec.
	defined bool
}
