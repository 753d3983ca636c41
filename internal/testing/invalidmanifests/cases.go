package invalidmanifests

import (
	"strings"
)

// Case is one input that apply refuses as a whole.
type Case struct {
	Name string
	// Manifests is a YAML stream that follows a valid ConfigMap named good;
	// PREFIX stands for the operator name and NS for the namespace the
	// objects are applied in.
	Manifests string
	// Message is what apply says of it, after "invalid manifests: ", with the
	// same placeholders.
	Message string
	// NeedsCluster marks an input only the API server can judge (a kind
	// no CRD among the manifests defines): render without --validate keeps
	// it as rendered.
	NeedsCluster bool
}

// Good is the valid object every case starts with: it must not be created.
const Good = `apiVersion: v1
kind: ConfigMap
metadata:
  name: good
data:
  a: b
`

// YAML returns the whole stream of the case: Good, then its manifests.
func (c Case) YAML(prefix, namespace string) string {
	return expand(Good+"---\n"+c.Manifests, prefix, namespace)
}

// Want returns the message apply gives for the case.
func (c Case) Want(prefix, namespace string) string {
	return expand(c.Message, prefix, namespace)
}

func expand(s, prefix, namespace string) string {
	return strings.NewReplacer("PREFIX", prefix, "NS", namespace).Replace(s)
}

// configMap is a ConfigMap named bad with the given annotations (YAML lines).
func configMap(annotations ...string) string {
	out := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n"
	if len(annotations) > 0 {
		out += "  annotations:\n"
		for _, a := range annotations {
			out += "    " + a + "\n"
		}
	}
	return out
}

// gadgetCRD defines the namespaced kind Gadget of table.wavekit.dev.
const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.table.wavekit.dev
  annotations:
    %s
spec:
  group: table.wavekit.dev
  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// Cases are the inputs apply refuses, each with its message.
var Cases = []Case{
	{Name: "missing name", Manifests: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: NS\n",
		Message: "object 2 (v1 ConfigMap): metadata.name is missing"},
	{Name: "generateName", Manifests: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: gen-\n",
		Message: `object 2 (v1 ConfigMap): generateName "gen-" is not supported, every object needs a fixed name`},
	{Name: "duplicate object", Manifests: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good\ndata:\n  other: data\n",
		Message: "ConfigMap NS/good: rendered more than once"},
	{Name: "invalid apply order", Manifests: configMap(`PREFIX/apply-order: "40000"`),
		Message: `ConfigMap NS/bad: annotation PREFIX/apply-order has invalid value "40000" (allowed: an integer from -32768 to 32767)`},
	{Name: "invalid update policy", Manifests: configMap(`PREFIX/update-policy: merge`),
		Message: `ConfigMap NS/bad: annotation PREFIX/update-policy has invalid value "merge" (allowed: default, replace, ssa-merge, ssa-override, recreate, replace-on-immutable)`},
	{Name: "invalid delete policy", Manifests: configMap(`PREFIX/delete-policy: keep`),
		Message: `ConfigMap NS/bad: annotation PREFIX/delete-policy has invalid value "keep" (allowed: default, delete, orphan, orphan-on-apply, orphan-on-delete)`},
	{Name: "invalid delete hook: not dropped as a hook, refused", Manifests: configMap(`PREFIX/delete-hook: pre-install`),
		Message: `ConfigMap NS/bad: annotation PREFIX/delete-hook has invalid value "pre-install" (allowed: pre-delete, post-delete)`},
	{Name: "invalid adoption policy", Manifests: configMap(`PREFIX/adoption-policy: sometimes`),
		Message: `ConfigMap NS/bad: annotation PREFIX/adoption-policy has invalid value "sometimes" (allowed: never, if-unowned, always)`},
	{Name: "invalid reconcile policy", Manifests: configMap(`PREFIX/reconcile-policy: always`),
		Message: `ConfigMap NS/bad: annotation PREFIX/reconcile-policy has invalid value "always" (allowed: on-object-change, on-object-or-component-change, once)`},
	{Name: "invalid status hint", Manifests: configMap(`PREFIX/status-hint: ready`),
		Message: `ConfigMap NS/bad: annotation PREFIX/status-hint has invalid value "ready"`},
	{Name: "invalid reapply interval", Manifests: configMap(`PREFIX/reapply-interval: soon`),
		Message: `ConfigMap NS/bad: annotation PREFIX/reapply-interval has invalid value "soon" (allowed: a non-negative Go duration such as 10m or 1h30m)`},
	{Name: "unknown annotation key", Manifests: configMap(`PREFIX/apply-ordr: "2"`),
		Message: "ConfigMap NS/bad: unknown annotation PREFIX/apply-ordr (did you mean PREFIX/apply-order?)"},
	{Name: "unknown kind without its CRD", NeedsCluster: true,
		Manifests: "apiVersion: unknown.wavekit.dev/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: NS\n",
		Message:   "unknown.wavekit.dev/Gadget NS/g: the API server does not serve unknown.wavekit.dev/v1, Kind=Gadget and no CRD among the manifests defines it"},
	{Name: "purge order on a namespace",
		Manifests: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: NS-purged\n  annotations:\n    PREFIX/purge-order: \"1\"\n",
		Message:   "Namespace NS-purged: annotation PREFIX/purge-order is not allowed on a Namespace"},
	{Name: "purge order on a CRD", Manifests: strings.Replace(gadgetCRD, "%s", `PREFIX/purge-order: "1"`, 1),
		Message: "apiextensions.k8s.io/CustomResourceDefinition gadgets.table.wavekit.dev: annotation PREFIX/purge-order is not allowed on a CustomResourceDefinition"},
	{Name: "purge order before apply order", Manifests: configMap(`PREFIX/apply-order: "2"`, `PREFIX/purge-order: "1"`),
		Message: "ConfigMap NS/bad: purge order 1 is before its apply order 2"},
	{Name: "an instance ordered before the CRD that serves it",
		Manifests: strings.Replace(gadgetCRD, "%s", `PREFIX/apply-order: "1"`, 1) + "---\napiVersion: table.wavekit.dev/v1\nkind: Gadget\nmetadata:\n  name: early\n",
		Message:   "table.wavekit.dev/Gadget NS/early: apply order 0 is before the order 1 of the definition that serves its type"},
}
