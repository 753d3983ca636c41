package demo

import (
	"fmt"
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/testenv"
)

// nodes are the Nodes kwok simulates in the demo's cluster.
var nodes = (&testenv.Environment{}).NodeNames()

// Story is the demo, stage by stage. `wavekit demo --help` lists it, and the
// run announces each stage in the same words before it runs it, so that the
// help and the run tell one story.
var Story = []string{
	fmt.Sprintf("start a local cluster (kube-apiserver, etcd, kube-controller-manager, kube-scheduler and %d Nodes "+
		"that kwok simulates; their binaries are built from the Go module proxy first if they are not there yet, about 7 minutes once) "+
		"and run the reference operator in this process, serving a bundled chart as the source gizmo", len(nodes)),
	"create a Component of gizmo and watch the operator apply it wave by wave: a CRD and its controller's Deployment, " +
		"configuration, a one-shot migration Job that is purged once it completed, and an instance of the CRD, applied last",
	"upgrade the Deployment's image and a ConfigMap of the next wave in one change: the next wave waits until " +
		"the Deployment controller has rolled the new ReplicaSet out",
	"create a foreign instance of the CRD and delete the Component: deletion is blocked, and says why, until " +
		"the foreign instance is removed; then it completes wave by wave, the chart's namespace last",
	"install a chart from a Helm repository served on localhost (spec.chart), upgrade it to the next version " +
		"by its version constraint, and delete it",
}

// Stages of Story, in the order the run reaches them.
const (
	stageCluster = iota
	stageApply
	stageUpgrade
	stageDelete
	stageRepository
)

// stage announces stage i of Story.
func (d *demo) stage(i int) {
	d.say("step %d/%d: %s", i+1, len(Story), Story[i])
}

// Help is Story as the numbered list of `wavekit demo --help`, wrapped to
// width columns.
func Help(width int) string {
	var b strings.Builder
	for i, text := range Story {
		prefix := fmt.Sprintf("%d. ", i+1)
		b.WriteString(wrap(prefix, strings.Repeat(" ", len(prefix)), text, width))
	}
	return b.String()
}

// wrap breaks text into lines of at most width columns (a longer word
// stays whole), the first starting with first, the others with indent.
func wrap(first, indent, text string, width int) string {
	var b strings.Builder
	line := first
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && line != first && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != first && line != indent {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
	return b.String()
}
