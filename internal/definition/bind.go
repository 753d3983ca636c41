package definition

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/instance"
	"github.com/wavekit-dev/wavekit/internal/definition/rollout"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// binder binds each instance, as it is read, to the revision it runs now:
// the one the rollout gives it, from the definition and its revisions in
// the cache.
type binder struct {
	cache      client.Reader
	operator   string
	definition string
	gvk        schema.GroupVersionKind

	// Once the kind is no longer served (close), nothing lists its
	// instances from the manager's cache: a list there would make a new
	// informer of the kind, which never syncs once its CRD is gone.
	life   context.Context
	end    context.CancelFunc
	mu     sync.RWMutex
	closed bool
}

func newBinder(cache client.Reader, operator, definition string, gvk schema.GroupVersionKind) *binder {
	life, end := context.WithCancel(context.Background())
	return &binder{cache: cache, operator: operator, definition: definition, gvk: gvk, life: life, end: end}
}

// close ends the lists in progress, waits for them, and refuses any
// other: the kind is about to stop being served.
func (b *binder) close() {
	b.end()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
}

// bind is the served reconciler's post-read hook.
func (b *binder) bind(ctx context.Context, _ client.Client, i *instance.Instance) error {
	def := &v1alpha1.ComponentDefinition{}
	if err := b.cache.Get(ctx, client.ObjectKey{Name: b.definition}, def); err != nil {
		return component.Retriable(fmt.Errorf("reading ComponentDefinition %s: %w", b.definition, err), 0)
	}
	if def.Status.Revision == 0 {
		return component.Retriable(fmt.Errorf("ComponentDefinition %s has no revision yet", b.definition), 0)
	}
	me, err := asRolloutInstance(b.operator, i)
	if err != nil {
		return err
	}
	var waves []rollout.Wave
	if st := def.Status.Rollout; st != nil && st.Phase != v1alpha1.RolloutComplete {
		instances, err := b.instances(ctx)
		if err != nil {
			return component.Retriable(err, 0)
		}
		if waves, err = rollout.Waves(def.Spec.Rollout, instances); err != nil {
			return &manifests.UserError{Err: fmt.Errorf("ComponentDefinition %s: %w", def.Name, err)}
		}
	}
	want := rollout.Desired(def.Status.Rollout, def.Status.Revision, waves, me)
	rev := &v1alpha1.ComponentDefinitionRevision{}
	if err := b.cache.Get(ctx, client.ObjectKey{Name: RevisionName(def.Name, want)}, rev); err != nil {
		if apierrors.IsNotFound(err) && me.Pinned == want {
			return &manifests.UserError{Err: fmt.Errorf("pinned to revision %d, which ComponentDefinition %s does not have (it has 1 to %d)", want, def.Name, def.Status.Revision)}
		}
		return component.Retriable(fmt.Errorf("reading revision %d of ComponentDefinition %s: %w", want, def.Name, err), 0)
	}
	return i.Bind(rev, b.operator)
}

// moved maps a change of the definition (its rollout's status) to the
// instances whose revision it changes, read with the definition the
// change brings: they bind again at once.
func (b *binder) moved(ctx context.Context, obj client.Object) []reconcile.Request {
	def, ok := obj.(*v1alpha1.ComponentDefinition)
	if !ok || def.Name != b.definition || def.Status.Revision == 0 {
		return nil
	}
	instances, err := b.instances(ctx)
	if err != nil {
		return nil
	}
	waves, err := rollout.Waves(def.Spec.Rollout, instances)
	if err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, i := range instances {
		if rollout.Desired(def.Status.Rollout, def.Status.Revision, waves, i) != i.Running {
			ns, name, _ := strings.Cut(i.ID, "/")
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
		}
	}
	return out
}

func (b *binder) instances(ctx context.Context) ([]rollout.Instance, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return nil, fmt.Errorf("%s is no longer served", b.gvk.Kind)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(b.life, cancel)()
	items, err := listInstances(ctx, b.cache, b.gvk)
	if err != nil {
		return nil, err
	}
	out := make([]rollout.Instance, 0, len(items))
	for n := range items {
		out = append(out, rolloutInstance(b.operator, &items[n]))
	}
	return out, nil
}

// RevisionName names revision n of a definition.
func RevisionName(definition string, n int64) string {
	return definition + "-" + strconv.FormatInt(n, 10)
}

// asRolloutInstance is what the rollout knows of i, as read.
func asRolloutInstance(operatorName string, i *instance.Instance) (rollout.Instance, error) {
	pinned, err := i.Pinned(operatorName)
	if err != nil {
		return rollout.Instance{}, err
	}
	return rollout.Instance{ID: i.Namespace + "/" + i.Name, Labels: i.Labels, Running: i.Status.Revision, Pinned: pinned}, nil
}

// failureReasons are the Ready reasons of an instance that failed at its
// revision, besides Stalled and the Error state.
var failureReasons = map[string]bool{
	component.ReasonError: true, component.ReasonTimeout: true, component.ReasonTestFailed: true,
	component.ReasonRolledBack: true, component.ReasonVerificationFailed: true,
}

// rolloutInstance is what the rollout knows of an instance read from the
// cache: its revision, pin, and whether it is Ready or failed at its
// generation. An unparsable pin counts as none here; the instance's own
// status says what is wrong with it.
func rolloutInstance(operatorName string, u *unstructured.Unstructured) rollout.Instance {
	id := u.GetNamespace() + "/" + u.GetName()
	running, _, _ := unstructured.NestedInt64(u.Object, "status", "revision")
	observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	state, _, _ := unstructured.NestedString(u.Object, "status", "state")
	i := rollout.Instance{ID: id, Labels: u.GetLabels(), Running: running}
	if pin, err := strconv.ParseInt(u.GetAnnotations()[manifests.Key(operatorName, instance.AnnotationPinRevision)], 10, 64); err == nil && pin > 0 {
		i.Pinned = pin
	}
	if observed != u.GetGeneration() {
		return i
	}
	ready, stalled := condition(u, component.ConditionReady), condition(u, "Stalled")
	i.Reason, i.Message = ready.reason, ready.message
	i.Ready = ready.status == "True"
	i.Failed = !i.Ready && (stalled.status == "True" || state == string(component.StateError) || failureReasons[ready.reason])
	return i
}

type conditionOf struct{ status, reason, message string }

func condition(u *unstructured.Unstructured, kind string) conditionOf {
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != kind {
			continue
		}
		s, _ := m["status"].(string)
		r, _ := m["reason"].(string)
		msg, _ := m["message"].(string)
		return conditionOf{s, r, msg}
	}
	return conditionOf{}
}
