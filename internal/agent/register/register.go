package register

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/internal/fleet"
)

// AgentAccount is the ServiceAccount of a cluster's agent, in the
// cluster's namespace on the hub; AgentRole its Role there.
const (
	AgentAccount = "wavekit-agent"
	AgentRole    = "wavekit-agent"
)

// Cluster is a pulled cluster to register.
type Cluster struct {
	// Operator is the operator name (default wavekit.dev).
	Operator string
	// Namespace is the namespace of the sets that may select the cluster;
	// Name the cluster's name there.
	Namespace, Name string
	// Labels of the cluster Secret, which sets select clusters and order
	// waves by.
	Labels map[string]string
}

// Register makes, idempotently, what the cluster c needs on the hub, and
// returns its namespace there. A cluster Secret of that name that is not
// a pulled cluster's is an error: it is not changed.
func Register(ctx context.Context, hub client.Client, c Cluster) (string, error) {
	if c.Operator == "" {
		c.Operator = "wavekit.dev"
	}
	if c.Namespace == "" || c.Name == "" {
		return "", errors.New("registering a cluster: give its namespace and name")
	}
	ns := fleet.WorkNamespace(c.Namespace, c.Name)
	objects := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{c.Operator + "/agent-of": c.Name}}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: AgentAccount}},
		agentRole(ns),
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: AgentRole},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: AgentRole},
			Subjects: agentSubjects(ns)},
	}
	for _, o := range objects {
		if err := hub.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("registering cluster %s/%s: creating %T %s: %w", c.Namespace, c.Name, o, o.GetName(), err)
		}
	}
	if err := bindCertificateUser(ctx, hub, ns); err != nil {
		return "", fmt.Errorf("registering cluster %s/%s: %w", c.Namespace, c.Name, err)
	}
	return ns, registerSecret(ctx, hub, c)
}

// agentSubjects are who the agent of the cluster namespace ns is: its
// ServiceAccount (token mode) and the user of its certificate.
func agentSubjects(ns string) []rbacv1.Subject {
	return []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: AgentAccount},
		{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: AgentUser(ns)}}
}

// bindCertificateUser adds the certificate's user to a RoleBinding of an
// earlier release, which bound the ServiceAccount only.
func bindCertificateUser(ctx context.Context, hub client.Client, ns string) error {
	binding := &rbacv1.RoleBinding{}
	if err := hub.Get(ctx, client.ObjectKey{Namespace: ns, Name: AgentRole}, binding); err != nil {
		return fmt.Errorf("reading RoleBinding %s/%s: %w", ns, AgentRole, err)
	}
	for _, s := range binding.Subjects {
		if s.Kind == rbacv1.UserKind && s.Name == AgentUser(ns) {
			return nil
		}
	}
	patch := client.MergeFrom(binding.DeepCopy())
	binding.Subjects = agentSubjects(ns)
	if err := hub.Patch(ctx, binding, patch); err != nil {
		return fmt.Errorf("binding the agent's certificate user in RoleBinding %s/%s: %w", ns, AgentRole, err)
	}
	return nil
}

// agentRole is what an agent may do in its namespace on the hub.
func agentRole(ns string) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: AgentRole}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"wavekit.dev"}, Resources: []string{"componentworks"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"wavekit.dev"}, Resources: []string{"componentworks/status"}, Verbs: []string{"update", "patch"}},
		// RBAC cannot limit create to a name; the Lease's name is fixed.
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{fleet.AgentLease},
			Verbs: []string{"get", "update"}},
		{APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"}, ResourceNames: []string{AgentAccount},
			Verbs: []string{"create"}},
	}}
}

// registerSecret creates the cluster Secret of c, or brings its labels up
// to date when it is already a pulled cluster's.
func registerSecret(ctx context.Context, hub client.Client, c Cluster) error {
	labels := maps.Clone(c.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[fleet.ClusterLabel(c.Operator)] = "true"
	labels[fleet.PullLabel(c.Operator)] = "true"
	secret := &corev1.Secret{}
	err := hub.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: c.Name}, secret)
	if apierrors.IsNotFound(err) {
		secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name, Labels: labels}}
		if err := hub.Create(ctx, secret); err != nil {
			return fmt.Errorf("registering cluster %s/%s: creating its cluster Secret: %w", c.Namespace, c.Name, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("registering cluster %s/%s: reading its cluster Secret: %w", c.Namespace, c.Name, err)
	}
	if secret.Labels[fleet.PullLabel(c.Operator)] != "true" {
		return fmt.Errorf("registering cluster %s/%s: Secret %s exists and is not a pulled cluster's (label %s); choose another name",
			c.Namespace, c.Name, c.Name, fleet.PullLabel(c.Operator))
	}
	patch := client.MergeFrom(secret.DeepCopy())
	maps.Copy(secret.Labels, labels)
	if err := hub.Patch(ctx, secret, patch); err != nil {
		return fmt.Errorf("registering cluster %s/%s: labelling its cluster Secret: %w", c.Namespace, c.Name, err)
	}
	return nil
}

// Credential returns a configuration that reaches the hub of hubConfig
// (its address and CA only) as the agent of the cluster namespace ns, with
// a token of its ServiceAccount valid for lifetime; the agent requests its
// next ones itself.
func Credential(ctx context.Context, hub client.Client, hubConfig *rest.Config, ns string, lifetime time.Duration) (*rest.Config, error) {
	seconds := int64(lifetime / time.Second)
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: AgentAccount}}
	if err := hub.SubResource("token").Create(ctx, sa, request); err != nil {
		return nil, fmt.Errorf("issuing a token of the agent of namespace %s: %w", ns, err)
	}
	out := rest.AnonymousClientConfig(hubConfig)
	out.BearerToken = request.Status.Token
	return out, nil
}
