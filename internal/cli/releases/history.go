package releases

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The history of a release: its last revisions, each with the objects it
// rendered while they fit, so that rollback needs neither the source nor
// the values of an earlier revision.
const (
	keyHistory   = "history"    // JSON of []revisionRecord
	keyHistoryGz = "history.gz" // the same, gzipped, when large
	// maxHistory is how many revisions the release keeps.
	maxHistory = 10
	// maxStoredRenders bounds the JSON of the renders a release keeps
	// (gzipped in the Secret, whose limit is 1 MiB); older revisions beyond
	// it keep their record without their objects and cannot be rolled
	// back to.
	maxStoredRenders = 2 << 20
)

// revisionRecord is one revision of a release: what was applied and how it
// ended.
type revisionRecord struct {
	Revision int64     `json:"revision"`
	Source   string    `json:"source,omitempty"`
	Updated  time.Time `json:"updated"`
	State    string    `json:"state"`
	Message  string    `json:"message,omitempty"`
	// Digest is the sha256 of the rendered objects.
	Digest string `json:"digest"`
	// RolledBackTo is the revision whose render this one re-applied.
	RolledBackTo int64 `json:"rolledBackTo,omitempty"`
	// Objects are the rendered objects; nil once older renders no longer
	// fit in maxStoredRenders.
	Objects []map[string]any `json:"objects,omitempty"`
}

// renderRecord turns rendered objects into what a revision record keeps.
func renderRecord(objects []client.Object) ([]map[string]any, string, error) {
	out := make([]map[string]any, 0, len(objects))
	for _, obj := range objects {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, "", fmt.Errorf("recording %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
		}
		out = append(out, content)
	}
	encoded, err := json.Marshal(out)
	if err != nil {
		return nil, "", fmt.Errorf("recording the render: %w", err)
	}
	sum := sha256.Sum256(encoded)
	return out, "sha256:" + hex.EncodeToString(sum[:]), nil
}

// objectsOf returns the objects a revision record keeps.
func (r revisionRecord) objectsOf() []client.Object {
	out := make([]client.Object, len(r.Objects))
	for i, content := range r.Objects {
		out[i] = &unstructured.Unstructured{Object: content}
	}
	return out
}

// withRecord returns history with rec in place of the record of its
// revision (or after the others), the newest maxHistory records, and
// the renders of the oldest ones dropped beyond maxStoredRenders.
func withRecord(history []revisionRecord, rec revisionRecord) []revisionRecord {
	out := make([]revisionRecord, 0, len(history)+1)
	for _, h := range history {
		if h.Revision != rec.Revision {
			out = append(out, h)
		}
	}
	out = append(out, rec)
	if len(out) > maxHistory {
		out = out[len(out)-maxHistory:]
	}
	size := 0
	for i := len(out) - 1; i >= 0; i-- {
		encoded, _ := json.Marshal(out[i].Objects)
		size += len(encoded)
		if size > maxStoredRenders && i < len(out)-1 {
			out[i].Objects = nil
		}
	}
	return out
}

// rollbackTarget returns the record to roll back to: revision, or without
// one (0) the newest Ready revision before the current one.
func rollbackTarget(history []revisionRecord, current, revision int64) (revisionRecord, error) {
	for i := len(history) - 1; i >= 0; i-- {
		h := history[i]
		match := h.Revision == revision || (revision == 0 && h.Revision < current && h.State == StateReady)
		if !match {
			continue
		}
		if h.Objects == nil {
			return revisionRecord{}, fmt.Errorf("revision %d is recorded without its objects (older renders are dropped beyond %d MiB)", h.Revision, maxStoredRenders>>20)
		}
		return h, nil
	}
	if revision == 0 {
		return revisionRecord{}, fmt.Errorf("no Ready revision before revision %d to roll back to", current)
	}
	return revisionRecord{}, fmt.Errorf("revision %d is not in the release's history (it keeps the last %d); it has %s",
		revision, maxHistory, storedRevisions(history))
}

// storedRevisions lists the revisions of history that can be rolled back to.
func storedRevisions(history []revisionRecord) string {
	var stored []string
	for _, h := range history {
		if h.Objects != nil {
			stored = append(stored, fmt.Sprintf("%d (%s)", h.Revision, h.State))
		}
	}
	if len(stored) == 0 {
		return "no revision with its objects stored"
	}
	return "revisions " + strings.Join(stored, ", ")
}
