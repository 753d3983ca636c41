package engine

import "k8s.io/apimachinery/pkg/runtime/schema"

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

var crdGVK = schema.GroupVersion{Group: groupAPIExtension, Version: "v1"}
