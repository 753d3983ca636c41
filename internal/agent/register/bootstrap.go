package register

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The identities of agents that registered by certificate. An agent's
// certificate has the subject CN=AgentUser(ns), O=AgentsGroup, ns its
// cluster's namespace on the hub; its bootstrap token is in the groups
// BootstrappersGroup and BootstrapGroup(ns). The approver (package
// internal/agent/approve) signs nothing else.
const (
	// AgentUserPrefix starts the user name of every agent's certificate.
	AgentUserPrefix = "wavekit:agent:"
	// AgentsGroup is the one group of every agent's certificate.
	AgentsGroup = "wavekit:agents"
	// BootstrappersGroup is the group of every agent's bootstrap token.
	BootstrappersGroup = "system:bootstrappers:wavekit"
	// CSRRole is the ClusterRole, and its ClusterRoleBinding, that let
	// bootstrap tokens and agents' certificates request certificates.
	CSRRole = "wavekit:agent-csr"
	// SignerName is the signer of the agents' certificates.
	SignerName = "kubernetes.io/kube-apiserver-client"
)

// AgentUser is the user name of the certificate of the agent of the
// cluster namespace ns.
func AgentUser(ns string) string { return AgentUserPrefix + ns }

// BootstrapGroup is the group that names the cluster namespace ns in its
// agent's bootstrap token.
func BootstrapGroup(ns string) string { return BootstrappersGroup + ":" + ns }

// bootstrapTokenSecretPrefix and the rest are the bootstrap token format of
// kube-apiserver's authenticator (--enable-bootstrap-token-auth).
const (
	bootstrapTokenSecretPrefix = "bootstrap-token-"
	tokenAlphabet              = "0123456789abcdefghijklmnopqrstuvwxyz"
)

// Bootstrap returns a configuration that reaches the hub of hubConfig (its
// address and CA only) with a new bootstrap token of the agent of the
// cluster namespace ns, valid for ttl: a bootstrap.kubernetes.io/token
// Secret in kube-system whose extra groups name the cluster. The token may
// request certificates (ClusterRole CSRRole, made here too) and nothing
// else; the hub's approver approves only one for that cluster's identity.
// The API server refuses the token after its expiry; Kubernetes'
// tokencleaner controller, where it runs, deletes the Secret then.
func Bootstrap(ctx context.Context, hub client.Client, hubConfig *rest.Config, ns string, ttl time.Duration) (*rest.Config, error) {
	if err := ensureCSRRole(ctx, hub); err != nil {
		return nil, err
	}
	id, secret := randomString(6), randomString(16)
	token := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: bootstrapTokenSecretPrefix + id,
			Labels: map[string]string{"wavekit.dev/agent-bootstrap": ns}},
		Type: corev1.SecretTypeBootstrapToken,
		StringData: map[string]string{
			"description":                    "wavekit agent bootstrap token of the cluster namespace " + ns,
			"token-id":                       id,
			"token-secret":                   secret,
			"expiration":                     time.Now().Add(ttl).UTC().Format(time.RFC3339),
			"usage-bootstrap-authentication": "true",
			"auth-extra-groups":              strings.Join([]string{BootstrappersGroup, BootstrapGroup(ns)}, ","),
		},
	}
	if err := hub.Create(ctx, token); err != nil {
		return nil, fmt.Errorf("creating a bootstrap token of the agent of namespace %s: %w", ns, err)
	}
	out := rest.AnonymousClientConfig(hubConfig)
	out.BearerToken = id + "." + secret
	return out, nil
}

// IsBootstrapToken tells whether token has the format of a bootstrap token.
func IsBootstrapToken(token string) bool {
	id, secret, ok := strings.Cut(token, ".")
	return ok && len(id) == 6 && len(secret) == 16 && strings.Trim(id+secret, tokenAlphabet) == ""
}

// randomString is n random characters of tokenAlphabet.
func randomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("reading random bytes: %v", err)) // crypto/rand does not fail
	}
	for i := range b {
		b[i] = tokenAlphabet[int(b[i])%len(tokenAlphabet)]
	}
	return string(b)
}

// ensureCSRRole makes the ClusterRole CSRRole and its binding to the
// groups of bootstrap tokens and agents' certificates: they create
// CertificateSigningRequests and read them (a request shows only a public
// key and, once signed, a certificate: nothing secret).
func ensureCSRRole(ctx context.Context, hub client.Client) error {
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: CSRRole}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests"},
		Verbs: []string{"create", "get", "list", "watch"}}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: CSRRole},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: CSRRole},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: BootstrappersGroup},
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: AgentsGroup}}}
	for _, o := range []client.Object{role, binding} {
		if err := hub.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %T %s: %w", o, o.GetName(), err)
		}
	}
	return nil
}
