package localcloud_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// seen is one watch event: its object and its resourceVersion as a number,
// which orders the events of different watches as etcd committed them.
type seen struct {
	rv     uint64
	action watch.EventType
	object client.Object
}

// watchLog records the events of watches of one namespace's Components and
// pods, from before the spec changes anything.
type watchLog struct {
	mu     sync.Mutex
	events []seen
}

// startWatchLog watches the Components and pods of ns until the spec ends.
func startWatchLog(ctx context.Context, ns string) *watchLog {
	GinkgoHelper()
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	l := &watchLog{}
	for _, list := range []client.ObjectList{&v1alpha1.ComponentList{}, &corev1.PodList{}} {
		w, err := wc.Watch(ctx, list, client.InNamespace(ns))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(w.Stop)
		go l.record(w)
	}
	return l
}

func (l *watchLog) record(w watch.Interface) {
	for e := range w.ResultChan() {
		obj, ok := e.Object.(client.Object)
		if !ok {
			continue
		}
		rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
		if err != nil {
			continue
		}
		l.mu.Lock()
		l.events = append(l.events, seen{rv: rv, action: e.Type, object: obj})
		l.mu.Unlock()
	}
}

// sorted returns the events so far in the order of their resourceVersion.
func (l *watchLog) sorted() []seen {
	l.mu.Lock()
	defer l.mu.Unlock()
	events := slices.Clone(l.events)
	slices.SortStableFunc(events, func(a, b seen) int { return cmp.Compare(a.rv, b.rv) })
	return events
}

// firstReady returns the resourceVersion of the first event of a Component
// whose Ready condition is True, 0 before there is one.
func (l *watchLog) firstReady() uint64 {
	for _, e := range l.sorted() {
		if c, ok := e.object.(*v1alpha1.Component); ok && e.action != watch.Deleted && isReady(c) {
			return e.rv
		}
	}
	return 0
}

// hasPodAt reports whether the log has an event of pod at resourceVersion
// rv: then every earlier event of the pods' watch is in the log too.
func (l *watchLog) hasPodAt(name string, rv uint64) bool {
	return slices.ContainsFunc(l.sorted(), func(e seen) bool {
		_, pod := e.object.(*corev1.Pod)
		return pod && e.object.GetName() == name && e.rv >= rv
	})
}

// readyBeforePods replays the log up to the Component's first Ready and
// says, for each time the Component was Ready, which of the pods named
// were missing or not Running and Ready then.
func (l *watchLog) readyBeforePods(readyAt uint64, pods ...string) []string {
	state := map[string]string{}
	var wrong []string
	for _, e := range l.sorted() {
		if e.rv > readyAt {
			break
		}
		switch obj := e.object.(type) {
		case *corev1.Pod:
			state[obj.Name] = podState(obj, e.action)
		case *v1alpha1.Component:
			if !isReady(obj) {
				continue
			}
			for _, name := range pods {
				if state[name] != "Running/Ready" {
					wrong = append(wrong, fmt.Sprintf("Component Ready at resourceVersion %d while pod %s is %q", e.rv, name, state[name]))
				}
			}
		}
	}
	return wrong
}

// podState is a pod's phase and whether it is Ready.
func podState(pod *corev1.Pod, action watch.EventType) string {
	if action == watch.Deleted {
		return "deleted"
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return string(pod.Status.Phase) + "/Ready"
		}
	}
	return string(pod.Status.Phase) + "/NotReady"
}

func isReady(c *v1alpha1.Component) bool {
	cond := c.Status.ReadyCondition()
	return cond != nil && cond.Status == "True"
}
