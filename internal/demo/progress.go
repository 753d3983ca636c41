package demo

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// progress shows a Component's waves and objects: in a terminal as a table
// redrawn in place, otherwise as plain lines whenever something changed.
type progress struct {
	out       io.Writer
	live      bool
	width     int // terminal columns; lines are cut to fit so redraws stay aligned
	drawn     int // lines of the last table (terminal)
	lastLines map[string]string
}

// newProgress shows progress on out; width > 0 means out is a terminal of
// that many columns, redrawn in place.
func newProgress(out io.Writer, width int) *progress {
	return &progress{out: out, live: width > 0, width: width, lastLines: map[string]string{}}
}

func (p *progress) fit(line string) string {
	runes := []rune(line)
	if p.width <= 1 || len(runes) < p.width {
		return line
	}
	return string(runes[:p.width-2]) + "…"
}

// line prints a message that stays.
func (p *progress) line(text string) {
	p.erase()
	fmt.Fprintln(p.out, text)
}

func (p *progress) erase() {
	if p.live && p.drawn > 0 {
		fmt.Fprintf(p.out, "\x1b[%dA\x1b[J", p.drawn)
		p.drawn = 0
	}
}

// show renders the component's current state.
func (p *progress) show(c *v1alpha1.Component) {
	lines := describe(c)
	if p.live {
		p.erase()
		for _, l := range lines {
			fmt.Fprintln(p.out, p.fit(l))
		}
		p.drawn = len(lines)
		return
	}
	for _, l := range lines {
		key, _, _ := strings.Cut(l, ":")
		if p.lastLines[key] != l {
			p.lastLines[key] = l
			fmt.Fprintln(p.out, "  "+strings.TrimSpace(l))
		}
	}
}

// settle keeps the last table on screen and starts fresh.
func (p *progress) settle() {
	p.drawn = 0
	p.lastLines = map[string]string{}
}

// describe lists the Ready condition, then each wave with its objects.
func describe(c *v1alpha1.Component) []string {
	lines := []string{fmt.Sprintf("component %s/%s: state %s", c.Namespace, c.Name, orNone(string(c.Status.State)))}
	if cond := c.Status.ReadyCondition(); cond != nil {
		lines = append(lines, fmt.Sprintf("  condition Ready: %s (%s) %s", cond.Status, cond.Reason, cond.Message))
	}
	waves := map[int16][]manifests.InventoryItem{}
	for _, item := range c.Status.Inventory {
		waves[item.ApplyOrder] = append(waves[item.ApplyOrder], item)
	}
	orders := make([]int, 0, len(waves))
	for o := range waves {
		orders = append(orders, int(o))
	}
	sort.Ints(orders)
	for _, o := range orders {
		items := waves[int16(o)]
		lines = append(lines, fmt.Sprintf("  wave %d: %s", o, waveSummary(items)))
		for _, item := range items {
			lines = append(lines, fmt.Sprintf("    %-45s: %s", item.Kind+" "+item.Name, item.Phase))
		}
	}
	return lines
}

func waveSummary(items []manifests.InventoryItem) string {
	done := 0
	for _, item := range items {
		if item.Phase == manifests.PhaseReady || item.Phase == manifests.PhaseCompleted {
			done++
		}
	}
	return fmt.Sprintf("%d/%d ready", done, len(items))
}

func orNone(s string) string {
	if s == "" {
		return "(none yet)"
	}
	return s
}
