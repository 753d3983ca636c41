package kinds

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Stage is the position of a kind within a wave: objects of a lower stage are
// applied first and deleted last.
type Stage int

const (
	StageNamespaces    Stage = iota
	StageDefinitions         // CRDs, cluster roles, priority classes, webhook configurations
	StageConfiguration       // service accounts, RBAC, ConfigMaps, Secrets
	StageWorkloads           // everything else
	StageAPIServices
	StageManagedInstances // instances of CRDs and APIServices the component itself manages
)

var stageNames = map[Stage]string{
	StageNamespaces:       "namespaces",
	StageDefinitions:      "definitions",
	StageConfiguration:    "configuration",
	StageWorkloads:        "workloads",
	StageAPIServices:      "api services",
	StageManagedInstances: "managed instances",
}

func (s Stage) String() string { return stageNames[s] }

const (
	GroupCore         = ""
	GroupRBAC         = "rbac.authorization.k8s.io"
	GroupAPIExtension = "apiextensions.k8s.io"
	groupScheduling   = "scheduling.k8s.io"
	groupAdmission    = "admissionregistration.k8s.io"
	GroupAPIRegistry  = "apiregistration.k8s.io"
)

var kindStages = map[[2]string]Stage{
	{GroupCore, "Namespace"}:                             StageNamespaces,
	{GroupAPIExtension, "CustomResourceDefinition"}:      StageDefinitions,
	{GroupRBAC, "ClusterRole"}:                           StageDefinitions,
	{groupScheduling, "PriorityClass"}:                   StageDefinitions,
	{groupAdmission, "MutatingWebhookConfiguration"}:     StageDefinitions,
	{groupAdmission, "ValidatingWebhookConfiguration"}:   StageDefinitions,
	{groupAdmission, "ValidatingAdmissionPolicy"}:        StageDefinitions,
	{groupAdmission, "ValidatingAdmissionPolicyBinding"}: StageDefinitions,
	{groupAdmission, "MutatingAdmissionPolicy"}:          StageDefinitions,
	{groupAdmission, "MutatingAdmissionPolicyBinding"}:   StageDefinitions,
	{GroupCore, "ServiceAccount"}:                        StageConfiguration,
	{GroupRBAC, "Role"}:                                  StageConfiguration,
	{GroupRBAC, "RoleBinding"}:                           StageConfiguration,
	{GroupRBAC, "ClusterRoleBinding"}:                    StageConfiguration,
	{GroupCore, "ConfigMap"}:                             StageConfiguration,
	{GroupCore, "Secret"}:                                StageConfiguration,
	{GroupAPIRegistry, "APIService"}:                     StageAPIServices,
}

// StageOf returns the stage of a kind; managed instances are decided by the
// caller, who knows which types the component serves.
func StageOf(group, kind string) Stage {
	if s, ok := kindStages[[2]string{group, kind}]; ok {
		return s
	}
	return StageWorkloads
}

func IsCRD(group, kind string) bool {
	return group == GroupAPIExtension && kind == "CustomResourceDefinition"
}

func IsAPIService(group, kind string) bool {
	return group == GroupAPIRegistry && kind == "APIService"
}

func IsNamespace(group, kind string) bool {
	return group == GroupCore && kind == "Namespace"
}

// CRDGroupVersion is the group and version of CustomResourceDefinitions.
var CRDGroupVersion = schema.GroupVersion{Group: GroupAPIExtension, Version: "v1"}

// ServedType is the one managed-instance rule: it says whether objects of
// group and kind are instances of one of types, the types a component's own
// CRDs and APIServices serve (the apply sort's managed-instances stage, the
// order of deletion), or the managed types whose foreign instances block
// deletion.
// A type's Kind may be "*" (an APIService serves its whole group), and its
// Group "*" or "*.suffix" (managed types given by hand; see matchesAny).
// It returns the index of the type that serves them: one of that very kind
// before a wildcard, and of equals the last, as a map keyed by type keeps.
func ServedType(types []manifests.TypeInfo, group, kind string) (int, bool) {
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
