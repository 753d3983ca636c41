package cli

import (
	"context"
	"fmt"
	"slices"

	"github.com/pmezard/go-difflib/difflib"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// action is what apply would do to one object.
type action string

const (
	actionCreate    action = "create"
	actionUpdate    action = "update"
	actionDelete    action = "delete"
	actionOrphan    action = "orphan"
	actionUnchanged action = "unchanged"
)

func (a action) symbol() string {
	switch a {
	case actionCreate:
		return "+"
	case actionDelete, actionOrphan:
		return "-"
	}
	return "~"
}

// objectDiff is the diff of one object.
type objectDiff struct {
	key    manifests.ObjectKey
	action action
	note   string
	text   string // unified diff
}

// differ dry-runs rendered objects against the cluster.
type differ struct {
	client    client.Client
	rel       *release
	prefix    string
	owner     manifests.Owner
	scopes    *scopes
	inventory map[manifests.ObjectKey]manifests.InventoryItem
	// showSecrets prints Secret values instead of masks.
	showSecrets bool
}

func newDiffer(cl *cluster, rel *release, showSecrets bool) *differ {
	d := &differ{
		client: cl.client, rel: rel, prefix: rel.OperatorName, owner: rel.owner(), showSecrets: showSecrets,
		scopes: &scopes{mapper: cl.client.RESTMapper()}, inventory: map[manifests.ObjectKey]manifests.InventoryItem{},
	}
	for _, item := range rel.Inventory {
		d.inventory[item.Key()] = item
	}
	return d
}

// object diffs one rendered object against what a dry run of its write returns.
func (d *differ) object(ctx context.Context, obj client.Object) (objectDiff, error) {
	u, err := toUnstructured(obj)
	if err != nil {
		return objectDiff{}, err
	}
	served, err := d.scopes.place(u, d.rel.Namespace)
	if err != nil {
		return objectDiff{}, err
	}
	key := keyOf(u)
	d.markOwned(u)
	if !served {
		return d.newObjectDiff(key, actionCreate, nil, u, "not validated: the cluster does not serve "+u.GroupVersionKind().Kind+" yet")
	}
	policies, err := manifests.ParsePolicies(d.prefix, key.String(), u.GetAnnotations(), manifests.Defaults{})
	if err != nil {
		return objectDiff{}, err
	}
	live, err := d.get(ctx, u)
	if err != nil {
		return objectDiff{}, err
	}
	if live == nil {
		if d.inventory[key].Phase == manifests.PhaseCompleted {
			return objectDiff{key: key, action: actionUnchanged}, nil
		}
		result, note, err := d.dryRunCreate(ctx, u)
		if err != nil {
			return objectDiff{}, fmt.Errorf("dry run of creating %s: %w", key, err)
		}
		return d.newObjectDiff(key, actionCreate, nil, result, note)
	}
	if policies.Reconcile == manifests.ReconcileOnce {
		return objectDiff{key: key, action: actionUnchanged}, nil
	}
	result, note, err := d.dryRunUpdate(ctx, u, live, policies.Update)
	if err != nil {
		return objectDiff{}, fmt.Errorf("dry run of updating %s: %w", key, err)
	}
	return d.newObjectDiff(key, actionUpdate, live, result, note)
}

// deletion diffs an inventory item that is no longer rendered; nil when the
// object is gone already.
func (d *differ) deletion(ctx context.Context, item manifests.InventoryItem) (*objectDiff, error) {
	probe := &unstructured.Unstructured{}
	probe.SetGroupVersionKind(item.GroupVersionKind())
	probe.SetNamespace(item.Namespace)
	probe.SetName(item.Name)
	live, err := d.get(ctx, probe)
	if err != nil || live == nil {
		return nil, err
	}
	if item.DeletePolicy == manifests.DeleteOrphan || item.DeletePolicy == manifests.DeleteOrphanOnApply {
		return &objectDiff{key: item.Key(), action: actionOrphan, note: "delete policy " + string(item.DeletePolicy)}, nil
	}
	od, err := d.newObjectDiff(item.Key(), actionDelete, live, nil, "")
	return &od, err
}

func (d *differ) get(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(u.GroupVersionKind())
	err := d.client.Get(ctx, client.ObjectKeyFromObject(u), live)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", keyOf(u), err)
	}
	return live, nil
}

// dryRunCreate returns the object as the API server would create it; when
// its namespace does not exist yet it returns the rendered object.
func (d *differ) dryRunCreate(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, string, error) {
	obj := u.DeepCopy()
	err := d.client.Create(ctx, obj, client.DryRunAll, client.FieldOwner(d.prefix))
	if apierrors.IsNotFound(err) && u.GetNamespace() != "" {
		return u, "not validated: namespace " + u.GetNamespace() + " does not exist yet", nil
	}
	return obj, "", err
}

// dryRunUpdate returns the object as the API server would store it after
// apply's write under the update policy.
func (d *differ) dryRunUpdate(ctx context.Context, u, live *unstructured.Unstructured, policy manifests.UpdatePolicy) (*unstructured.Unstructured, string, error) {
	obj := u.DeepCopy()
	if policy == manifests.UpdateSSAMerge || policy == manifests.UpdateSSAOverride {
		err := d.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj),
			client.FieldOwner(d.prefix), client.ForceOwnership, client.DryRunAll)
		return obj, "", err
	}
	obj.SetResourceVersion(live.GetResourceVersion())
	finalizers := obj.GetFinalizers()
	for _, f := range live.GetFinalizers() {
		if !slices.Contains(finalizers, f) {
			finalizers = append(finalizers, f)
		}
	}
	obj.SetFinalizers(finalizers)
	err := d.client.Update(ctx, obj, client.DryRunAll, client.FieldOwner(d.prefix))
	if err != nil && policy == manifests.UpdateRecreate && apierrors.IsInvalid(err) {
		return u, "recreated: " + string(policy) + " policy", nil
	}
	return obj, "", err
}

// markOwned adds the owner label and annotation, as the applier does.
func (d *differ) markOwned(u *unstructured.Unstructured) {
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[manifests.Key(d.prefix, manifests.LabelOwnerID)] = d.owner.ID
	u.SetLabels(labels)
	annotations := u.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[manifests.Key(d.prefix, "owner")] = d.owner.Description
	u.SetAnnotations(annotations)
}

// newObjectDiff compares before and after (nil: absent); equal objects are
// unchanged. Secret values are masked unless d.showSecrets.
func (d *differ) newObjectDiff(key manifests.ObjectKey, act action, before, after *unstructured.Unstructured, note string) (objectDiff, error) {
	if !d.showSecrets {
		before, after = maskSecrets(before, after)
	}
	a, err := comparable(before)
	if err != nil {
		return objectDiff{}, fmt.Errorf("%s: %w", key, err)
	}
	b, err := comparable(after)
	if err != nil {
		return objectDiff{}, fmt.Errorf("%s: %w", key, err)
	}
	if a == b {
		return objectDiff{key: key, action: actionUnchanged}, nil
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(a), B: difflib.SplitLines(b),
		FromFile: "live", ToFile: "rendered", Context: 3,
	})
	if err != nil {
		return objectDiff{}, fmt.Errorf("diffing %s: %w", key, err)
	}
	return objectDiff{key: key, action: act, note: note, text: text}, nil
}

// serverFields are set by the API server on every write; diffs leave them out.
var serverFields = []string{"managedFields", "resourceVersion", "uid", "generation", "creationTimestamp"}

// comparable renders u as YAML without server-managed fields ("" for nil).
func comparable(u *unstructured.Unstructured) (string, error) {
	if u == nil {
		return "", nil
	}
	u = u.DeepCopy()
	for _, field := range serverFields {
		unstructured.RemoveNestedField(u.Object, "metadata", field)
	}
	data, err := yaml.Marshal(u.Object)
	if err != nil {
		return "", fmt.Errorf("encoding as YAML: %w", err)
	}
	return string(data), nil
}

func keyOf(u *unstructured.Unstructured) manifests.ObjectKey {
	gvk := u.GroupVersionKind()
	return manifests.ObjectKey{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

func runtimeToUnstructured(obj client.Object) (map[string]any, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", obj, err)
	}
	return content, nil
}
