package dashboard

import (
	"strings"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// command is a command line the page offers to copy.
type command struct {
	Label string
	Text  string
}

// wavekitGroup is the group of the reference operator's kind, the one the
// wavekit CLI's component verbs read.
const wavekitGroup = "wavekit.dev"

// componentCommands are the read commands about one component.
func componentCommands(r *record) []command {
	ref := r.namespace + "/" + r.name
	out := []command{
		{"the component", "kubectl get " + r.kind.key + " -n " + r.namespace + " " + r.name + " -o yaml"},
		{"describe", "kubectl describe " + r.kind.key + " -n " + r.namespace + " " + r.name},
	}
	if r.kind.gvk.Group == wavekitGroup {
		out = append(out, command{"objects by wave, live", "kubectl wavekit tree " + ref},
			command{"drift", "kubectl wavekit diff component " + ref})
	}
	return out
}

// overviewCommand lists the components of the kinds.
func overviewCommand(kinds []kindInfo, namespace string) string {
	keys := make([]string, len(kinds))
	for i, k := range kinds {
		keys[i] = k.key
	}
	scope := "-A"
	if namespace != "" {
		scope = "-n " + namespace
	}
	return "kubectl get " + strings.Join(keys, ",") + " " + scope
}

// objectCommand shows one object of an inventory.
func objectCommand(item manifests.InventoryItem) string {
	kind := strings.ToLower(item.Kind)
	if item.Group != "" {
		kind += "." + item.Group
	}
	scope := ""
	if item.Namespace != "" {
		scope = " -n " + item.Namespace
	}
	return "kubectl get " + kind + scope + " " + item.Name + " -o yaml"
}

// eventsCommand lists the Events about a component.
func eventsCommand(r *record) string {
	return "kubectl get events -n " + r.namespace + " --field-selector involvedObject.name=" + r.name
}

// historyCommand prints a component's history.
func historyCommand(r *record) string {
	return "kubectl get " + r.kind.key + " -n " + r.namespace + " " + r.name + " -o jsonpath='{.status.history}'"
}
