package dashboard

import (
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// overviewPage is the list of components.
type overviewPage struct {
	layoutData
	Namespace  string
	State      string
	Query      string
	Namespaces []string
	States     []string
	Counts     []stateCount
	Rows       []overviewRow
	// Sets are the sets the viewer may list, by the namespace and name
	// filters (the state filter is the components').
	Sets []setRow
	// Definitions are the definitions of kinds the viewer may list, by the
	// name filter.
	Definitions []definitionRow
	Visible     int
	ManyKinds   bool
	Command     string
}

// stateCount is how many visible components are in one state.
type stateCount struct {
	State string
	Count int
}

// row is one component in the overview, and the head of its own page.
type row struct {
	URL        string
	Kind       string
	Namespace  string
	Name       string
	Source     string
	State      string
	Reason     string
	Message    string
	WavesDone  int
	Waves      int
	Suspended  bool
	Deleting   bool
	LastChange time.Time
	Created    time.Time
}

// Bounds of what a query may ask for and of a message in the overview.
const (
	maxQuery      = 253
	maxRowMessage = 240
)

// allStates are the states a component can be in, in the filter's order.
var allStates = []string{string(component.StateReady), string(component.StateProcessing), string(component.StatePending),
	string(component.StateError), string(component.StateDeletionPending), string(component.StateDeleting)}

func (h *Handler) serveOverview(w http.ResponseWriter, r *http.Request, v *viewer) {
	page := h.overview(r, v)
	h.render(w, http.StatusOK, "overview", page)
}

// overview builds the overview of what v may see, filtered by the query.
func (h *Handler) overview(r *http.Request, v *viewer) overviewPage {
	q := r.URL.Query()
	page := overviewPage{
		layoutData: h.layout(v, h.opts.Title, "/live"),
		Namespace:  bounded(q.Get("namespace")), State: bounded(q.Get("state")), Query: bounded(q.Get("q")),
		States: allStates, ManyKinds: len(h.componentKinds()) > 1,
	}
	visible := h.store.list(func(rec *record) bool { return v.seesRecord(r.Context(), rec) })
	namespaces, counts := map[string]bool{}, map[string]int{}
	for _, rec := range visible {
		namespaces[rec.namespace] = true
		counts[rec.state()]++
		if page.matches(rec) {
			page.Rows = append(page.Rows, h.overviewRow(rec))
		}
	}
	page.Visible = len(visible)
	page.Definitions = h.definitionRows(r.Context(), v, page.Query)
	for _, set := range h.store.listSets(func(s *setRecord) bool { return v.mayList(r.Context(), s.kind.kindInfo, s.namespace) }) {
		if (page.Namespace == "" || set.namespace == page.Namespace) && strings.Contains(set.name, strings.ToLower(page.Query)) {
			page.Sets = append(page.Sets, newSetRow(set, maxRowMessage))
		}
	}
	for ns := range namespaces {
		page.Namespaces = append(page.Namespaces, ns)
	}
	sort.Strings(page.Namespaces)
	for _, state := range allStates {
		if counts[state] > 0 {
			page.Counts = append(page.Counts, stateCount{State: state, Count: counts[state]})
		}
	}
	page.Command = overviewCommand(h.componentKinds(), page.Namespace)
	return page
}

// matches tells whether a component passes the page's filters.
func (p *overviewPage) matches(rec *record) bool {
	if p.Namespace != "" && rec.namespace != p.Namespace {
		return false
	}
	if p.State != "" && rec.state() != p.State {
		return false
	}
	return p.Query == "" || strings.Contains(rec.name, strings.ToLower(p.Query))
}

// bounded cuts a query parameter to a length no name exceeds.
func bounded(s string) string {
	if len(s) > maxQuery {
		return s[:maxQuery]
	}
	return s
}

// overviewRow is a component's line in the overview: its head, rendered
// once per change of the component and kept in its record, and its ages.
type overviewRow struct {
	Head          template.HTML
	LastChangeAgo string
	CreatedStamp  string
	CreatedAgo    string
}

// rowHead is what the template "row" shows.
type rowHead struct {
	row
	ManyKinds bool
}

// overviewRow returns rec's line, rendering its head if no request has yet.
func (h *Handler) overviewRow(rec *record) overviewRow {
	rec.head.once.Do(func() {
		var buf strings.Builder
		data := rowHead{row: newRow(rec, maxRowMessage), ManyKinds: len(h.componentKinds()) > 1}
		if err := pages["overview"].ExecuteTemplate(&buf, "row", data); err != nil {
			h.opts.Log.Error(err, "rendering a row of the dashboard", "component", rec.key())
			buf.Reset()
			buf.WriteString(`<tr><td colspan="7">` + template.HTMLEscapeString(rec.namespace+"/"+rec.name) + `</td><td>`)
		}
		rec.head.html = template.HTML(buf.String())
	})
	return overviewRow{Head: rec.head.html, LastChangeAgo: ago(rec.lastChange), CreatedStamp: stamp(rec.created), CreatedAgo: ago(rec.created)}
}

// newRow summarises a component, its message cut to limit bytes.
func newRow(rec *record, limit int) row {
	message := strings.Join(strings.Fields(rec.ready.Message), " ")
	if limit > 0 && len(message) > limit {
		message = message[:limit] + "…"
	}
	return row{
		URL: componentURL(rec.kind.key, rec.namespace, rec.name), Kind: rec.kind.gvk.Kind,
		Namespace: rec.namespace, Name: rec.name, Source: rec.source, State: rec.state(),
		Reason: rec.ready.Reason, Message: message, WavesDone: rec.wavesDone(), Waves: len(rec.waves),
		Suspended: rec.suspended, Deleting: rec.deleting, LastChange: rec.lastChange, Created: rec.created,
	}
}

// componentURL is the path of a component's page.
func componentURL(kindKey, namespace, name string) string {
	return "/c/" + url.PathEscape(kindKey) + "/" + url.PathEscape(namespace) + "/" + url.PathEscape(name)
}
