package engine

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// stage is the position of a kind within a wave: objects of a lower stage are
// applied first and deleted last.
type stage int

const (
	stageNamespaces    stage = iota
	stageDefinitions         // CRDs, cluster roles, priority classes, webhook configurations
	stageConfiguration       // service accounts, RBAC, ConfigMaps, Secrets
	stageWorkloads           // everything else
	stageAPIServices
	stageManagedInstances // instances of CRDs and APIServices the component itself manages
)

var stageNames = map[stage]string{
	stageNamespaces:       "namespaces",
	stageDefinitions:      "definitions",
	stageConfiguration:    "configuration",
	stageWorkloads:        "workloads",
	stageAPIServices:      "api services",
	stageManagedInstances: "managed instances",
}

func (s stage) String() string { return stageNames[s] }

const (
	groupCore         = ""
	groupRBAC         = "rbac.authorization.k8s.io"
	groupAPIExtension = "apiextensions.k8s.io"
	groupScheduling   = "scheduling.k8s.io"
	groupAdmission    = "admissionregistration.k8s.io"
	groupAPIRegistry  = "apiregistration.k8s.io"
)

var kindStages = map[[2]string]stage{
	{groupCore, "Namespace"}:                             stageNamespaces,
	{groupAPIExtension, "CustomResourceDefinition"}:      stageDefinitions,
	{groupRBAC, "ClusterRole"}:                           stageDefinitions,
	{groupScheduling, "PriorityClass"}:                   stageDefinitions,
	{groupAdmission, "MutatingWebhookConfiguration"}:     stageDefinitions,
	{groupAdmission, "ValidatingWebhookConfiguration"}:   stageDefinitions,
	{groupAdmission, "ValidatingAdmissionPolicy"}:        stageDefinitions,
	{groupAdmission, "ValidatingAdmissionPolicyBinding"}: stageDefinitions,
	{groupAdmission, "MutatingAdmissionPolicy"}:          stageDefinitions,
	{groupAdmission, "MutatingAdmissionPolicyBinding"}:   stageDefinitions,
	{groupCore, "ServiceAccount"}:                        stageConfiguration,
	{groupRBAC, "Role"}:                                  stageConfiguration,
	{groupRBAC, "RoleBinding"}:                           stageConfiguration,
	{groupRBAC, "ClusterRoleBinding"}:                    stageConfiguration,
	{groupCore, "ConfigMap"}:                             stageConfiguration,
	{groupCore, "Secret"}:                                stageConfiguration,
	{groupAPIRegistry, "APIService"}:                     stageAPIServices,
}

// stageOf returns the stage of a kind; managed instances are decided by the
// caller, who knows which types the component serves.
func stageOf(group, kind string) stage {
	if s, ok := kindStages[[2]string{group, kind}]; ok {
		return s
	}
	return stageWorkloads
}

func isCRD(group, kind string) bool {
	return group == groupAPIExtension && kind == "CustomResourceDefinition"
}

func isAPIService(group, kind string) bool {
	return group == groupAPIRegistry && kind == "APIService"
}

func isNamespace(group, kind string) bool {
	return group == groupCore && kind == "Namespace"
}

// crdGVK is the group and version of CustomResourceDefinitions.
var crdGVK = schema.GroupVersion{Group: groupAPIExtension, Version: "v1"}

// servedType is the one managed-instance rule: it says whether objects of
// group and kind are instances of one of types, the types a component's own
// CRDs and APIServices serve (the apply sort's managed-instances stage, the
// order of deletion), or the managed types whose foreign instances block
// deletion.
// A type's Kind may be "*" (an APIService serves its whole group), and its
// Group "*" or "*.suffix" (managed types given by hand; see matchesAny).
// It returns the index of the type that serves them: one of that very kind
// before a wildcard, and of equals the last, as a map keyed by type keeps.
func servedType(types []manifests.TypeInfo, group, kind string) (int, bool) {
	found, exact := -1, false
	for i, t := range types {
		if !matchesAny([]manifests.TypeInfo{t}, group, kind) {
			continue
		}
		if t.Kind == kind || !exact {
			found, exact = i, t.Kind == kind
		}
	}
	return found, found >= 0
}

// matchesAny reports whether group and kind match one of the types; a type's
// Kind may be "*" and its Group "*" or "*.suffix".
func matchesAny(types []manifests.TypeInfo, group, kind string) bool {
	for _, t := range types {
		if (t.Kind == "*" || t.Kind == kind) && groupMatches(t.Group, group) {
			return true
		}
	}
	return false
}

func groupMatches(pattern, group string) bool {
	switch {
	case pattern == "*":
		return true
	case strings.HasPrefix(pattern, "*."):
		return strings.HasSuffix(group, pattern[1:])
	}
	return pattern == group
}
