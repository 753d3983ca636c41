package robustness_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// keepForReplay copies what a failed run leaves, for whoever replays it,
// into $SOAK_KEEP/<namespace>-<seed> (make robustness sets it to
// _output/soak): each replica's log, the trace, and the recorded history
// one line per event (time, cluster, type, kind, key, resourceVersion and,
// for Components and sets, the Ready condition), never an object's data.
// It returns the folder, or "" when SOAK_KEEP is not set.
func (r *run) keepForReplay(trace string) (string, error) {
	root := os.Getenv("SOAK_KEEP")
	if root == "" {
		return "", nil
	}
	dir := filepath.Join(root, fmt.Sprintf("%s-%d", r.ns, r.seed))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	for _, rep := range r.replicas {
		log, err := os.ReadFile(rep.log)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, rep.name+".log"), log, 0o600); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	for _, e := range r.hist.Events() {
		fmt.Fprintf(&b, "%s %s %s %s %s %d", e.At.Format("15:04:05.000"), e.Cluster, e.Type, e.Kind, e.Key(), e.RV)
		if e.Kind == "Component" || e.Kind == "ComponentSet" {
			fmt.Fprintf(&b, " %s", readyLine(e.Object))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "history.txt"), []byte(b.String()), 0o600); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "trace.txt"), []byte(trace), 0o600)
}

// readyLine is the Ready condition of a recorded Component or set:
// "gen 3/3 Ready False/Processing: waiting for wave 1: …".
func readyLine(u *unstructured.Unstructured) string {
	if u == nil {
		return ""
	}
	observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	line := fmt.Sprintf("gen %d/%d", observed, u.GetGeneration())
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			line += fmt.Sprintf(" Ready %v/%v: %v", m["status"], m["reason"], m["message"])
		}
	}
	return line
}
