package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// tracker watches the releases' custom resources and Deployments and
// records, for the current goal, when each release first reached it: its
// resource Ready for its generation and its Deployment rolled out with the
// goal's message (goalReady), or both deleted (goalGone).
type tracker struct {
	mu      sync.Mutex
	goal    goal
	message string
	cr      map[string]time.Time // when the resource reached the goal
	dep     map[string]time.Time // when the Deployment reached the goal
	changed chan struct{}        // receives after every record

	crInformer, depInformer cache.SharedIndexInformer
}

type goal int

const (
	goalNone goal = iota
	goalReady
	goalGone
)

// newTracker starts watching gvr and Deployments in the bench namespace.
func newTracker(ctx context.Context, c *cluster, gvr schema.GroupVersionResource) (*tracker, error) {
	t := &tracker{changed: make(chan struct{}, 1)}
	t.depInformer = informers.NewSharedInformerFactoryWithOptions(c.kube, 0, informers.WithNamespace(benchNamespace)).Apps().V1().Deployments().Informer()
	watched := []cache.SharedIndexInformer{t.depInformer}
	if !gvr.Empty() {
		t.crInformer = dynamicinformer.NewFilteredDynamicSharedInformerFactory(c.dynamic, 0, benchNamespace, nil).ForResource(gvr).Informer()
		watched = append(watched, t.crInformer)
	}
	for _, inf := range watched {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { t.observe(obj, false) },
			UpdateFunc: func(_, obj any) { t.observe(obj, false) },
			DeleteFunc: func(obj any) { t.observe(obj, true) },
		}); err != nil {
			return nil, err
		}
		go inf.Run(ctx.Done())
	}
	synced := make([]cache.InformerSynced, len(watched))
	for i, inf := range watched {
		synced[i] = inf.HasSynced
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return nil, fmt.Errorf("watching %s and Deployments: %w", gvr, ctx.Err())
	}
	return t, nil
}

// setGoal starts a new goal with empty records and records what already
// meets it.
func (t *tracker) setGoal(g goal, message string) {
	t.mu.Lock()
	t.goal, t.message = g, message
	t.cr, t.dep = map[string]time.Time{}, map[string]time.Time{}
	t.mu.Unlock()
	if g == goalReady {
		objects := t.depInformer.GetStore().List()
		if t.crInformer != nil {
			objects = append(objects, t.crInformer.GetStore().List()...)
		}
		for _, obj := range objects {
			t.observe(obj, false)
		}
	}
}

// observe records obj if it meets the goal for the first time.
func (t *tracker) observe(obj any, deleted bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj, deleted = tomb.Obj, true
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	var met bool
	var name string
	var records map[string]time.Time
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		name, records = o.GetName(), t.cr
		met = (t.goal == goalGone && deleted) || (t.goal == goalReady && !deleted && resourceReady(o, t.message))
	case *appsv1.Deployment:
		name, records = o.Name, t.dep
		met = (t.goal == goalGone && deleted) || (t.goal == goalReady && !deleted && rolledOut(o, t.message))
	default:
		return
	}
	if records == nil || !met {
		return
	}
	if _, seen := records[name]; !seen {
		records[name] = now
		select {
		case t.changed <- struct{}{}:
		default:
		}
	}
}

// done returns the time the last of names met the goal, and whether all have.
func (t *tracker) done(names []string) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var last time.Time
	for _, n := range names {
		dep, ok2 := t.dep[n]
		cr, ok1 := t.cr[n]
		if t.crInformer == nil {
			cr, ok1 = dep, true // a CLI's release has no resource: its Deployment is all
		}
		if !ok1 || !ok2 {
			return time.Time{}, false
		}
		last = latest(last, latest(cr, dep))
	}
	return last, true
}

// spans returns, for names that all met the goal, the time from since to
// the last resource and to the last Deployment meeting it, and the longest
// time a release's resource met it after its Deployment (the tool's lag in
// seeing the rollout).
func (t *tracker) spans(names []string, since time.Time) (lastResource, lastDeployment, maxLag float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, n := range names {
		cr, dep := t.cr[n], t.dep[n]
		lastResource = max(lastResource, cr.Sub(since).Seconds())
		lastDeployment = max(lastDeployment, dep.Sub(since).Seconds())
		maxLag = max(maxLag, cr.Sub(dep).Seconds())
	}
	return lastResource, lastDeployment, maxLag
}

// counts says how many releases have met the goal, by resource and Deployment.
func (t *tracker) counts() (int, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.cr), len(t.dep)
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// resourceReady reports whether a tool's resource is Ready for its current
// generation (status.observedGeneration and the Ready condition's) with
// message in its values.
func resourceReady(u *unstructured.Unstructured, message string) bool {
	if m, _, _ := unstructured.NestedString(u.Object, "spec", "values", "message"); m != message || u.GetDeletionTimestamp() != nil {
		return false
	}
	observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	if observed != u.GetGeneration() {
		return false
	}
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		cond, _ := c.(map[string]any)
		if cond["type"] != "Ready" {
			continue
		}
		gen, hasGen := cond["observedGeneration"].(int64)
		return cond["status"] == "True" && (!hasGen || gen == u.GetGeneration())
	}
	return false
}

// rolledOut reports whether Deployment d is Available with every replica
// updated to a pod template whose MESSAGE is message, as the Deployment
// controller reports it.
func rolledOut(d *appsv1.Deployment, message string) bool {
	if d.Status.ObservedGeneration != d.Generation || d.Spec.Replicas == nil {
		return false
	}
	want := *d.Spec.Replicas
	if d.Status.UpdatedReplicas != want || d.Status.AvailableReplicas != want || d.Status.Replicas != want {
		return false
	}
	available := false
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
			available = true
		}
	}
	return available && templateMessage(d) == message
}

func templateMessage(d *appsv1.Deployment) string {
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, e := range c.Env {
			if e.Name == "MESSAGE" {
				return e.Value
			}
		}
	}
	return ""
}
