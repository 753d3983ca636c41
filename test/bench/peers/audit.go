package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"
)

// auditEvent is what the bench reads of an audit.k8s.io/v1 Event.
type auditEvent struct {
	Stage string `json:"stage"`
	Verb  string `json:"verb"`
	User  struct {
		Username string `json:"username"`
	} `json:"user"`
	UserAgent string `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
}

// requestCounts are a window's requests: by verb, and by verb and resource.
type requestCounts struct {
	ByVerb     map[string]int `json:"byVerb"`
	ByResource map[string]int `json:"byResource"`
	Total      int            `json:"total"`
}

// countRequests reads the audit log and counts user's requests in each
// window, by the time the API server received them. A watch counts when it
// starts, any other request when it completes. It also returns the user
// agents the user sent.
func countRequests(path, user string, windows []window) ([]requestCounts, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the audit log: %w", err)
	}
	defer f.Close()
	counts := make([]requestCounts, len(windows))
	for i := range counts {
		counts[i] = requestCounts{ByVerb: map[string]int{}, ByResource: map[string]int{}}
	}
	var agents []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<24)
	for s.Scan() {
		var e auditEvent
		if err := json.Unmarshal(s.Bytes(), &e); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if e.User.Username != user || !countsAsRequest(e) {
			continue
		}
		if !slices.Contains(agents, e.UserAgent) {
			agents = append(agents, e.UserAgent)
		}
		i := windowOf(windows, e.RequestReceivedTimestamp)
		if i < 0 {
			continue
		}
		counts[i].Total++
		counts[i].ByVerb[e.Verb]++
		counts[i].ByResource[e.Verb+" "+resourceOf(e)]++
	}
	return counts, agents, s.Err()
}

func countsAsRequest(e auditEvent) bool {
	if e.Verb == "watch" {
		return e.Stage == "ResponseStarted"
	}
	return e.Stage == "ResponseComplete"
}

func resourceOf(e auditEvent) string {
	if e.ObjectRef == nil {
		return "(non-resource)"
	}
	if e.ObjectRef.Subresource != "" {
		return e.ObjectRef.Resource + "/" + e.ObjectRef.Subresource
	}
	return e.ObjectRef.Resource
}

// windowOf is the index of the window that holds t, or -1.
func windowOf(windows []window, t time.Time) int {
	for i, w := range windows {
		if !t.Before(w.start) && t.Before(w.end) {
			return i
		}
	}
	return -1
}
