package releases

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// progress shows how an apply goes, pass after pass.
type progress interface {
	// update shows the result of one pass.
	update(res engine.Result)
	// done reports a release whose waves are all ready.
	done(rel *release, res engine.Result)
	// pending reports a release left waiting (apply without --wait).
	pending(rel *release, res engine.Result)
}

// newProgress picks a redrawn table for a terminal and plain lines otherwise.
func newProgress(out io.Writer, rel *release) progress {
	if width, ok := terminalWidth(out); ok {
		return &tableProgress{out: out, width: width}
	}
	return &lineProgress{out: out, printed: map[int16]string{}}
}

// terminalWidth returns the width of out when it is a terminal.
func terminalWidth(out io.Writer) (int, bool) {
	f, ok := out.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width <= 0 {
		width = 80
	}
	return width, true
}

// wave sums up the objects of one apply-order wave.
type wave struct {
	order        int16
	total, ready int
	waiting      []engine.Waiting
}

// wavesOf groups the inventory by apply order; the waiting objects of the
// pass go to the wave it stopped in.
func wavesOf(res engine.Result) []wave {
	byOrder := map[int16]*wave{}
	for _, item := range res.Inventory {
		w, ok := byOrder[item.ApplyOrder]
		if !ok {
			w = &wave{order: item.ApplyOrder}
			byOrder[item.ApplyOrder] = w
		}
		w.total++
		if item.Phase == manifests.PhaseReady || item.Phase == manifests.PhaseCompleted {
			w.ready++
		}
	}
	if w, ok := byOrder[res.Wave]; ok && !res.Done {
		w.waiting = res.Waiting
	}
	waves := make([]wave, 0, len(byOrder))
	for _, w := range byOrder {
		waves = append(waves, *w)
	}
	slices.SortFunc(waves, func(a, b wave) int { return int(a.order) - int(b.order) })
	return waves
}

// reached reports whether a pass got to the wave.
func (w wave) reached(res engine.Result) bool {
	return res.Done || w.order <= res.Wave
}

// itemSet is an inventory by object key.
type itemSet map[manifests.ObjectKey]manifests.InventoryItem

func keysOf(items []manifests.InventoryItem) itemSet {
	set := make(itemSet, len(items))
	for _, item := range items {
		set[item.Key()] = item
	}
	return set
}

// removed says what happened to the objects that left the inventory in a
// pass, in the order of the pass's plan (one pass may run several delete
// waves and hooks now that a deletion the API server completes at once
// needs no second pass): "deleted KEY" for what it deleted,
// "orphaned KEY" for what a delete policy keeps, and "left KEY" for what it
// had nothing to delete of (gone already, or held by another owner).
func removed(res engine.Result) []string {
	now := keysOf(res.Inventory)
	var lines []string
	for _, action := range res.Actions {
		if item, kept := now[action.Object]; kept && item.DeleteHook == "" {
			continue // purged, and remembered as Completed
		}
		switch action.Action {
		case engine.ActionDelete:
			lines = append(lines, "deleted "+action.Object.String())
		case engine.ActionOrphan:
			lines = append(lines, "orphaned "+action.Object.String())
		case engine.ActionLeave:
			lines = append(lines, "left "+action.Object.String()+": nothing to delete (gone already, or held by another owner)")
		}
	}
	return lines
}

// readyLine is the closing line of an apply.
func readyLine(rel *release, res engine.Result) string {
	waves := wavesOf(res)
	return fmt.Sprintf("release %s is ready: %d objects in %d waves (revision %d)", rel, len(res.Inventory), len(waves), rel.Revision)
}

func pendingLine(rel *release, res engine.Result) string {
	return fmt.Sprintf("release %s is applied up to wave %d and waits for %s; run apply again or use --wait",
		rel, res.Wave, summarize(res.Waiting))
}

// lineProgress prints a line whenever a wave's count or wait changes.
type lineProgress struct {
	out     io.Writer
	printed map[int16]string
}

func (p *lineProgress) update(res engine.Result) {
	for _, w := range wavesOf(res) {
		if !w.reached(res) {
			continue
		}
		line := fmt.Sprintf("wave %d: %d/%d ready", w.order, w.ready, w.total)
		if len(w.waiting) > 0 {
			line += ", waiting for " + summarize(w.waiting)
		}
		if p.printed[w.order] != line {
			p.printed[w.order] = line
			fmt.Fprintln(p.out, line)
		}
	}
	for _, line := range removed(res) {
		fmt.Fprintln(p.out, line)
	}
}

func (p *lineProgress) done(rel *release, res engine.Result) {
	fmt.Fprintln(p.out, readyLine(rel, res))
}

func (p *lineProgress) pending(rel *release, res engine.Result) {
	fmt.Fprintln(p.out, pendingLine(rel, res))
}

// tableProgress redraws a table of waves in place.
type tableProgress struct {
	out     io.Writer
	deleted []string
	width   int
	lines   int
}

func (p *tableProgress) update(res engine.Result) {
	p.deleted = append(p.deleted, removed(res)...)
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s %-7s %s\n", "WAVE", "READY", "STATE")
	for _, w := range wavesOf(res) {
		fmt.Fprintf(&b, "%-6d %-7s %s\n", w.order, fmt.Sprintf("%d/%d", w.ready, w.total), waveState(w, res))
	}
	for _, line := range p.deleted {
		fmt.Fprintln(&b, line)
	}
	p.redraw(b.String())
}

func waveState(w wave, res engine.Result) string {
	switch {
	case w.ready == w.total:
		return "ready"
	case len(w.waiting) > 0:
		return "waiting for " + summarize(w.waiting)
	case w.reached(res):
		return "applying"
	}
	return "pending"
}

// redraw moves the cursor up over the last table, clears to the end of the
// screen and prints text, each line cut to the terminal width so that the
// count of lines to move up stays right.
func (p *tableProgress) redraw(text string) {
	if p.lines > 0 {
		fmt.Fprintf(p.out, "\x1b[%dA\x1b[J", p.lines)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for _, line := range lines {
		if runes := []rune(line); len(runes) >= p.width {
			line = string(runes[:max(p.width-2, 1)]) + "…"
		}
		fmt.Fprintln(p.out, line)
	}
	p.lines = len(lines)
}

func (p *tableProgress) done(rel *release, res engine.Result) {
	fmt.Fprintln(p.out, readyLine(rel, res))
}

func (p *tableProgress) pending(rel *release, res engine.Result) {
	fmt.Fprintln(p.out, pendingLine(rel, res))
}
