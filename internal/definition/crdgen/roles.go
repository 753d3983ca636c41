package crdgen

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Aggregation labels of Kubernetes' default user-facing ClusterRoles: a
// ClusterRole that carries one adds its rules to view, edit or admin.
const (
	aggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
	aggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	aggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
)

// RoleName names the ClusterRole that grants access (view or edit) to the
// instances of def's kind.
func RoleName(operator string, def *v1alpha1.ComponentDefinition, access string) string {
	return operator + ":definition:" + Name(def) + ":" + access
}

// ClusterRoles are the roles of def's kind: view (read instances) and edit
// (also create, change and delete them, and take the page's actions), each aggregated into Kubernetes'
// roles of the same name (edit also into admin), so that whoever may edit
// a namespace may edit its instances. Bound with a RoleBinding, each grants
// one kind in one namespace and nothing else.
func ClusterRoles(operator string, def *v1alpha1.ComponentDefinition) []*rbacv1.ClusterRole {
	resources := []string{def.Spec.Names.Plural, def.Spec.Names.Plural + "/status"}
	read := []string{"get", "list", "watch"}
	role := func(access string, verbs []string, aggregate ...string) *rbacv1.ClusterRole {
		labels := map[string]string{manifests.Key(operator, LabelDefinition): def.Name}
		for _, a := range aggregate {
			labels[a] = "true"
		}
		return &rbacv1.ClusterRole{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: RoleName(operator, def, access), Labels: labels},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{def.Spec.Group}, Resources: resources[:1], Verbs: verbs},
				{APIGroups: []string{def.Spec.Group}, Resources: resources[1:], Verbs: read},
			},
		}
	}
	return []*rbacv1.ClusterRole{
		role("view", read, aggregateToView),
		// reconcile, suspend, resume and rollback: the actions of the status
		// page and the CLI, RBAC verbs of their own as on Components.
		role("edit", []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection",
			"reconcile", "suspend", "resume", "rollback"}, aggregateToEdit, aggregateToAdmin),
	}
}
