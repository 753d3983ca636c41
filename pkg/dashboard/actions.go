package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The actions, each the RBAC verb that allows it on the object's resource.
const (
	actionReconcile = "reconcile"
	actionSuspend   = "suspend"
	actionResume    = "resume"
	actionRollback  = "rollback"
	actionPromote   = "promote"
)

// clusterScope is the namespace segment of a cluster-scoped object's URL.
const clusterScope = "-"

// annotationPinRevision is the suffix of <operator>/pin-revision, which
// pins an instance of a defined kind to a revision of its definition.
const annotationPinRevision = "pin-revision"

// actionButton is an action the page offers the viewer on an object.
type actionButton struct {
	Verb, Label, URL string
}

// actionTarget is an object actions apply to: a component or a set.
type actionTarget struct {
	kind                 kindInfo
	namespace, name, uid string
	set                  bool
	// suspended is spec.suspend of a component, spec.paused of a set.
	suspended bool
	// rollbackTo is the generation of the Ready render a component keeps
	// to roll back to (status.lastGoodRender), when it is not the render
	// applied or rolled back to now; 0 for none.
	rollbackTo int64
	// definition is set for a definition of kinds (Options.Definitions).
	definition *definitionRecord
	page       string
}

// verbs are the actions the target offers now: suspend or resume as it
// is, reconcile, and roll back when a component keeps an earlier Ready
// render; an object of a defined kind, whose spec is its source's values,
// neither suspend nor resume.
func (t actionTarget) verbs() []string {
	var verbs []string
	switch {
	case t.definition != nil:
		if _, _, _, halted := t.definition.halted(); halted {
			return []string{actionPromote}
		}
		return nil
	case t.kind.defined:
		verbs = []string{actionReconcile}
	case t.suspended:
		return []string{actionResume}
	default:
		verbs = []string{actionReconcile, actionSuspend}
	}
	if t.rollbackTo > 0 {
		verbs = append(verbs, actionRollback)
	}
	return verbs
}

// label is the button's text of verb on t.
func (t actionTarget) label(verb string) string {
	switch {
	case verb == actionReconcile:
		return "Reconcile now"
	case verb == actionRollback:
		return fmt.Sprintf("Roll back to generation %d", t.rollbackTo)
	case verb == actionPromote:
		instance, _, from, _ := t.definition.halted()
		return fmt.Sprintf("Pin %s to revision %d and go on", instance, from)
	case verb == actionSuspend && t.set:
		return "Pause the rollout"
	case verb == actionResume && t.set:
		return "Resume the rollout"
	case verb == actionSuspend:
		return "Suspend"
	}
	return "Resume"
}

// componentTarget is the action target of a component.
func componentTarget(rec *record) actionTarget {
	return actionTarget{kind: rec.kind, namespace: rec.namespace, name: rec.name, uid: rec.uid, suspended: rec.suspended,
		rollbackTo: rollbackTo(rec.status), page: componentURL(rec.kind.key, rec.namespace, rec.name)}
}

// rollbackTo is the generation of the Ready render status keeps to roll
// back to, unless it is the one applied or rolled back to already.
func rollbackTo(status component.Status) int64 {
	good, att := status.LastGoodRender, status.Attempt
	switch {
	case good == nil:
		return 0
	case att != nil && (att.RenderDigest == good.RenderDigest || att.Result == component.ResultRolledBack):
		return 0
	}
	return good.Generation
}

// setTarget is the action target of a set.
func setTarget(set *setRecord) actionTarget {
	return actionTarget{kind: set.kind.kindInfo, namespace: set.namespace, name: set.name, uid: set.uid, set: true, suspended: set.paused,
		page: setURL(set.kind.key, set.namespace, set.name)}
}

// buttons are the actions the viewer may take on t, none without Actions.
func (h *Handler) buttons(ctx context.Context, v *viewer, t actionTarget) []actionButton {
	if h.opts.Actions == nil || (h.opts.Auth != nil && !v.loggedIn) {
		return nil
	}
	var out []actionButton
	for _, verb := range t.verbs() {
		if v.may(ctx, t.access(verb)) {
			out = append(out, actionButton{Verb: verb, Label: t.label(verb),
				URL: "/act/" + t.kind.key + "/" + t.namespace + "/" + t.name + "/" + verb})
		}
	}
	return out
}

// access is the RBAC check of verb on t.
func (t actionTarget) access(verb string) Access {
	namespace := t.namespace
	if namespace == clusterScope {
		namespace = ""
	}
	return Access{Verb: verb, Group: t.kind.gvk.Group, Resource: t.kind.resource, Namespace: namespace, Name: t.name}
}

// findTarget is the component or set of a request's path, nil if the
// viewer may not see it.
func (h *Handler) findTarget(r *http.Request, v *viewer) *actionTarget {
	if d := h.definitions; d != nil && r.PathValue("namespace") == clusterScope && r.PathValue("kind") == d.kind.key {
		if rec := d.get(r.PathValue("name")); rec != nil && v.mayList(r.Context(), d.kind, "") {
			t := d.target(rec)
			return &t
		}
		return nil
	}
	key := recordKey(r.PathValue("kind"), r.PathValue("namespace"), r.PathValue("name"))
	if rec := h.store.get(key); rec != nil && v.seesRecord(r.Context(), rec) {
		t := componentTarget(rec)
		return &t
	}
	if set := h.store.getSet(key); set != nil && v.mayList(r.Context(), set.kind.kindInfo, set.namespace) {
		t := setTarget(set)
		return &t
	}
	return nil
}

// serveAction takes an action: the CSRF token checked, then the viewer's
// right to the action's verb on the object, then the object patched and
// the action recorded as an Event that names the viewer.
func (h *Handler) serveAction(w http.ResponseWriter, r *http.Request, v *viewer) {
	t := h.findTarget(r, v)
	if t == nil {
		h.notFound(w)
		return
	}
	if h.opts.Auth != nil && !v.loggedIn {
		h.message(w, http.StatusForbidden, "Refused", "Log in or sign in to act: anonymous viewers only read.", true)
		return
	}
	verb := r.PathValue("action")
	if !slices.Contains(t.verbs(), verb) {
		h.message(w, http.StatusConflict, "Not now", fmt.Sprintf("%s %s/%s offers no %q now: reload the page.", t.kind.gvk.Kind, t.namespace, t.name, verb), false)
		return
	}
	if !h.codec.CheckCSRF(v.session, r.PostFormValue("csrf")) {
		h.message(w, http.StatusForbidden, "Refused", "The form carries no valid CSRF token: reload the page and try again.", false)
		return
	}
	if !v.may(r.Context(), t.access(verb)) {
		h.opts.Log.Info("action refused by RBAC", "user", v.user.Username, "action", verb, "kind", t.kind.gvk.Kind, "namespace", t.namespace, "name", t.name)
		h.message(w, http.StatusForbidden, "Refused", fmt.Sprintf("%s may not %s %s in namespace %s: that needs the RBAC verb %q on %s.",
			v.user.Username, verb, t.kind.resource, t.namespace, verb, groupResource(t.kind)), false)
		return
	}
	if verb == actionPromote {
		h.promote(w, r, v, t)
		return
	}
	if err := h.act(r.Context(), t, verb); err != nil {
		h.opts.Log.Error(err, "taking an action", "user", v.user.Username, "action", verb, "kind", t.kind.gvk.Kind, "namespace", t.namespace, "name", t.name)
		h.message(w, http.StatusBadGateway, "Not done", err.Error(), false)
		return
	}
	h.record(t, verb, v.user.Username, "")
	http.Redirect(w, r, t.page+"?done="+verb, http.StatusSeeOther)
}

// promote lets a definition's halted rollout go on: it pins the instance
// the rollout halted at to the revision the instances ran before, which
// the rollout then leaves aside.
func (h *Handler) promote(w http.ResponseWriter, r *http.Request, v *viewer, t *actionTarget) {
	instance, kind, from, _ := t.definition.halted()
	namespace, name, _ := strings.Cut(instance, "/")
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`,
		manifests.Key(h.opts.Actions.OperatorName, annotationPinRevision), strconv.FormatInt(from, 10))
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(kind)
	obj.SetNamespace(namespace)
	obj.SetName(name)
	if err := h.opts.Actions.Client.Patch(r.Context(), obj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		h.opts.Log.Error(err, "taking an action", "user", v.user.Username, "action", actionPromote, "definition", t.name, "instance", instance)
		h.message(w, http.StatusBadGateway, "Not done", fmt.Sprintf("pinning %s %s to revision %d: %v", kind.Kind, instance, from, err), false)
		return
	}
	h.record(t, actionPromote, v.user.Username, fmt.Sprintf(": %s pinned to revision %d", instance, from))
	http.Redirect(w, r, t.page+"?done="+actionPromote, http.StatusSeeOther)
}

// act patches t for verb with the page's own client: only the fields the
// action sets change.
func (h *Handler) act(ctx context.Context, t *actionTarget, verb string) error {
	requested := time.Now().UTC().Format(time.RFC3339Nano)
	request := map[string]any{"annotations": map[string]any{
		manifests.Key(h.opts.Actions.OperatorName, component.AnnotationReconcileRequestedAt): requested}}
	field := "suspend"
	if t.set {
		field = "paused"
	}
	patch := map[string]any{}
	switch verb {
	case actionReconcile:
		patch["metadata"] = request
	case actionSuspend:
		patch["spec"] = map[string]any{field: true}
	case actionResume:
		patch["spec"] = map[string]any{field: false}
		patch["metadata"] = request
	case actionRollback:
		request["annotations"].(map[string]any)[manifests.Key(h.opts.Actions.OperatorName, component.AnnotationRollbackRequestedAt)] = requested
		patch["metadata"] = request
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(t.kind.gvk)
	obj.SetNamespace(t.namespace)
	obj.SetName(t.name)
	if err := h.opts.Actions.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data)); err != nil {
		return fmt.Errorf("%s of %s %s/%s: %w", verb, t.kind.gvk.Kind, t.namespace, t.name, err)
	}
	return nil
}

// record keeps the action as an Event on the object and a line of the
// log, both naming the user; detail ends the Event's note.
func (h *Handler) record(t *actionTarget, verb, user, detail string) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(t.kind.gvk)
	if t.namespace != clusterScope {
		obj.SetNamespace(t.namespace)
	}
	obj.SetName(t.name)
	obj.SetUID(types.UID(t.uid))
	h.opts.Actions.Recorder.Eventf(obj, nil, corev1.EventTypeNormal, "DashboardAction", verb,
		"%s asked for %s from the dashboard%s", user, verb, detail)
	h.opts.Log.Info("action taken", "user", user, "action", verb, "kind", t.kind.gvk.Kind, "namespace", t.namespace, "name", t.name)
}

// groupResource is kind's resource as RBAC names it, "components.wavekit.dev".
func groupResource(kind kindInfo) string {
	if kind.gvk.Group == "" {
		return kind.resource
	}
	return kind.resource + "." + kind.gvk.Group
}

// doneOf is the action a redirect after one names, if it is one.
func doneOf(r *http.Request) string {
	done := r.URL.Query().Get("done")
	if slices.Contains([]string{actionReconcile, actionSuspend, actionResume, actionRollback, actionPromote}, done) {
		return done
	}
	return ""
}
