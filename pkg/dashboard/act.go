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
	switch {
	case verb == actionReconcile:
		patch["metadata"] = request
	case verb == actionSuspend && t.kind.defined:
		// An annotation is no change of the spec: the request makes the
		// operator look, and report the instance Suspended, now.
		request["annotations"].(map[string]any)[manifests.Key(h.opts.Actions.OperatorName, annotationSuspend)] = "true"
		patch["metadata"] = request
	case verb == actionSuspend:
		patch["spec"] = map[string]any{field: true}
	case verb == actionResume && t.kind.defined:
		request["annotations"].(map[string]any)[manifests.Key(h.opts.Actions.OperatorName, annotationSuspend)] = nil
		patch["metadata"] = request
	case verb == actionResume:
		patch["spec"] = map[string]any{field: false}
		patch["metadata"] = request
	case verb == actionRollback:
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
