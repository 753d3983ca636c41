package helm

import (
	"fmt"
	"strconv"

	helmrelease "helm.sh/helm/v3/pkg/release"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Waves that the translation of crds/ and Helm hooks uses; docs/helm.md has
// the full mapping.
const (
	// CRDApplyOrder is the apply-order of the objects in a chart's crds/
	// directories: before every hook and every template.
	CRDApplyOrder int16 = -20000
	// PreHookApplyOrder is the apply-order of pre-install and pre-upgrade
	// hooks of weight 0; a hook of weight w goes to PreHookApplyOrder + w.
	PreHookApplyOrder int16 = -10000
	// PostHookApplyOrder is the apply-order of post-install and post-upgrade
	// hooks of weight 0; a hook of weight w goes to PostHookApplyOrder + w.
	PostHookApplyOrder int16 = 10000
	// PreDeleteOrder is the delete-order of pre-delete hooks of weight 0; a
	// hook of weight w goes to PreDeleteOrder + w.
	PreDeleteOrder int16 = -10000
	// PostDeleteOrder is the delete-order of post-delete hooks of weight 0; a
	// hook of weight w goes to PostDeleteOrder + w.
	PostDeleteOrder int16 = 10000
	// MaxHookWeight bounds the magnitude of helm.sh/hook-weight so that hook
	// waves stay apart from each other and from the templates' wave 0.
	MaxHookWeight = 9999
	// PreHooksEnd is the last wave of pre-install and pre-upgrade hooks: the
	// succeeded ones go at its end, after the last of them.
	PreHooksEnd = PreHookApplyOrder + MaxHookWeight
	// PostHooksEnd is the last wave of post-install and post-upgrade hooks.
	PostHooksEnd = PostHookApplyOrder + MaxHookWeight
)

// AnnotationDeleteHook is manifests.AnnotationDeleteHook: it marks a
// pre-delete or post-delete hook, which the applier never applies while the
// component lives and runs in its delete wave when the component is deleted.
const AnnotationDeleteHook = manifests.AnnotationDeleteHook

// AnnotationTestHook is manifests.AnnotationTestHook: it marks a test
// (helm.sh/hook: test), which the applier never applies and a test run
// creates, one test at a time in apply-order (the hook weight), then name.
const AnnotationTestHook = manifests.AnnotationTestHook

// Helm's resource policy annotation and the value that keeps an object.
const (
	helmResourcePolicy     = "helm.sh/resource-policy"
	helmResourcePolicyKeep = "keep"
)

// hookEvents is what a hook's helm.sh/hook annotation asks for.
type hookEvents struct {
	install, upgrade, pre, post, preDelete, postDelete, test bool
}

func eventsOf(h *helmrelease.Hook) hookEvents {
	var e hookEvents
	for _, ev := range h.Events {
		switch ev {
		case helmrelease.HookPreInstall:
			e.install, e.pre = true, true
		case helmrelease.HookPostInstall:
			e.install, e.post = true, true
		case helmrelease.HookPreUpgrade:
			e.upgrade, e.pre = true, true
		case helmrelease.HookPostUpgrade:
			e.upgrade, e.post = true, true
		case helmrelease.HookPreDelete:
			e.preDelete = true
		case helmrelease.HookPostDelete:
			e.postDelete = true
		case helmrelease.HookTest:
			e.test = true
		}
	}
	return e
}

// hookAnnotations returns the wavekit annotations (key suffix → value) for a
// hook in this render, or keep=false when the hook is not part of it.
func hookAnnotations(h *helmrelease.Hook, isInstall, dropDeleteHooks bool) (map[string]string, bool, error) {
	if h.Weight < -MaxHookWeight || h.Weight > MaxHookWeight {
		return nil, false, fmt.Errorf("%s: hook %s %s: helm.sh/hook-weight %d is outside [-%d, %d]",
			h.Path, h.Kind, h.Name, h.Weight, MaxHookWeight, MaxHookWeight)
	}
	e := eventsOf(h)
	switch {
	case e.test:
		return testHookAnnotations(h), true, nil
	case e.install || e.upgrade:
		if isInstall && !e.install {
			return nil, false, nil
		}
		return applyHookAnnotations(h, e), true, nil
	case (e.preDelete || e.postDelete) && !dropDeleteHooks:
		return deleteHookAnnotations(h, e), true, nil
	default: // rollback hooks, or delete hooks when they are dropped
		return nil, false, nil
	}
}

func applyHookAnnotations(h *helmrelease.Hook, e hookEvents) map[string]string {
	first, last := HookLifetime(e.pre, e.post, h.Weight)
	out := map[string]string{manifests.AnnotationApplyOrder: strconv.Itoa(int(first))}
	if hasDeletePolicy(h, helmrelease.HookSucceeded) {
		out[manifests.AnnotationPurgeOrder] = strconv.Itoa(int(last))
	}
	// A hook is never updated: Helm deletes one left from an earlier
	// release before it creates it again (before-hook-creation, its
	// default), or fails the upgrade when no delete policy allows that. A
	// hook whose hook-succeeded deletion a stop came before is deleted as
	// that policy would have, not updated in place: its old run must not
	// pass for this render's.
	out[manifests.AnnotationUpdatePolicy] = string(manifests.UpdateRecreate)
	if e.upgrade {
		// Helm runs it again on every upgrade, changed or not.
		out[manifests.AnnotationReconcilePolicy] = string(manifests.ReconcileOnObjectOrComponentChange)
	} else {
		out[manifests.AnnotationReconcilePolicy] = string(manifests.ReconcileOnce)
	}
	return out
}

// HookLifetime returns the waves between which a pre- or post-install or
// -upgrade hook of the given weight must exist: it is applied in wave first
// and, with hook-delete-policy hook-succeeded, may be purged at the end of
// wave last. Helm runs the hooks of one event in weight order and deletes
// the succeeded ones only once every hook of that event has succeeded, so a
// hook lives until the end of its last event's waves (PreHooksEnd or
// PostHooksEnd), and a hook of pre and post events lives through both.
func HookLifetime(pre, post bool, weight int) (first, last int16) {
	switch {
	case pre && post:
		return PreHookApplyOrder + int16(weight), PostHooksEnd
	case pre:
		return PreHookApplyOrder + int16(weight), PreHooksEnd
	default:
		return PostHookApplyOrder + int16(weight), PostHooksEnd
	}
}

func deleteHookAnnotations(h *helmrelease.Hook, e hookEvents) map[string]string {
	event, order := helmrelease.HookPostDelete, PostDeleteOrder+int16(h.Weight)
	if e.preDelete {
		event, order = helmrelease.HookPreDelete, PreDeleteOrder+int16(h.Weight)
	}
	out := map[string]string{
		AnnotationDeleteHook:            event.String(),
		manifests.AnnotationDeleteOrder: strconv.Itoa(int(order)),
	}
	if !hasDeletePolicy(h, helmrelease.HookSucceeded) {
		out[manifests.AnnotationDeletePolicy] = string(manifests.DeleteOrphan)
	}
	return out
}

// testHookAnnotations runs a test hook in the test wave of its weight, and
// maps its delete policies: a test is always created anew by the next run
// (Helm's before-hook-creation, its default), and hook-succeeded and
// hook-failed delete it at the end of a run it passed or failed.
func testHookAnnotations(h *helmrelease.Hook) map[string]string {
	succeeded, failed := hasDeletePolicy(h, helmrelease.HookSucceeded), hasDeletePolicy(h, helmrelease.HookFailed)
	policy := manifests.TestKeep
	switch {
	case succeeded && failed:
		policy = manifests.TestDelete
	case succeeded:
		policy = manifests.TestDeleteOnSuccess
	case failed:
		policy = manifests.TestDeleteOnFailure
	}
	return map[string]string{AnnotationTestHook: string(policy), manifests.AnnotationApplyOrder: strconv.Itoa(h.Weight)}
}

func hasDeletePolicy(h *helmrelease.Hook, policy helmrelease.HookDeletePolicy) bool {
	for _, p := range h.DeletePolicies {
		if p == policy {
			return true
		}
	}
	return false
}
