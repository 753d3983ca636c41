package approve

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/wavekit-dev/wavekit/internal/agent/register"
)

// Condition reasons the approver writes, and its Events'.
const (
	ReasonApproved = "WavekitAgentIdentity"
	ReasonDenied   = "NotWavekitAgentIdentity"
)

// Approver approves the certificate requests of registered clusters'
// agents and denies those that claim an agent's identity wrongly.
type Approver struct {
	client   client.Client
	live     client.Reader
	recorder recorder.EventRecorder
	// agentOf labels a registered cluster's namespace on the hub
	// (package register).
	agentOf string
}

// Setup registers the approver of the operator named operator with mgr,
// when the operator may read and approve certificate requests (the chart's
// ClusterRole <fullname>-agents grants it); without, it logs that agents
// cannot register by certificate and registers nothing. The approver looks
// at undecided requests of the agents' signer that claim an agent's
// identity; mgr's cache should hold no others (CacheFor).
func Setup(mgr ctrl.Manager, operator string) error {
	missing, err := missingRights(context.Background(), mgr.GetClient())
	if err != nil {
		return err
	}
	if missing != "" {
		ctrl.Log.WithName("approve").Info("agents' certificates are not approved: the operator may not " + missing +
			" (the chart's ClusterRole <fullname>-agents grants it); agents register with tokens only")
		return nil
	}
	a := &Approver{client: mgr.GetClient(), live: mgr.GetAPIReader(), recorder: mgr.GetEventRecorder(operator),
		agentOf: operator + "/agent-of"}
	err = ctrl.NewControllerManagedBy(mgr).Named("agent-csr-approver").
		For(&certificatesv1.CertificateSigningRequest{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			r, ok := o.(*certificatesv1.CertificateSigningRequest)
			if !ok || r.Spec.SignerName != register.SignerName || decided(r) {
				return false
			}
			_, ours := Claim(r)
			return ours
		}))).Complete(a)
	if err != nil {
		return fmt.Errorf("setting up the approver of agents' certificates: %w", err)
	}
	return nil
}

// missingRights says which right the approver lacks, or "".
func missingRights(ctx context.Context, c client.Client) (string, error) {
	for _, attrs := range []authorizationv1.ResourceAttributes{
		{Group: certificatesv1.GroupName, Resource: "certificatesigningrequests", Verb: "list"},
		{Group: certificatesv1.GroupName, Resource: "certificatesigningrequests", Verb: "watch"},
		{Group: certificatesv1.GroupName, Resource: "certificatesigningrequests", Subresource: "approval", Verb: "update"},
		{Group: certificatesv1.GroupName, Resource: "signers", Name: register.SignerName, Verb: "approve"},
	} {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}
		if err := c.Create(ctx, review); err != nil {
			return "", fmt.Errorf("asking whether the operator may %s %s: %w", attrs.Verb, attrs.Resource, err)
		}
		if !review.Status.Allowed {
			return fmt.Sprintf("%s %s %s", attrs.Verb, attrs.Resource, attrs.Subresource+attrs.Name), nil
		}
	}
	return "", nil
}

// decided tells whether r is approved or denied already.
func decided(r *certificatesv1.CertificateSigningRequest) bool {
	for _, c := range r.Status.Conditions {
		if c.Type == certificatesv1.CertificateApproved || c.Type == certificatesv1.CertificateDenied {
			return true
		}
	}
	return false
}

// Reconcile decides one request.
func (a *Approver) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r := &certificatesv1.CertificateSigningRequest{}
	if err := a.client.Get(ctx, req.NamespacedName, r); err != nil || decided(r) {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	ns, ours := Claim(r)
	if !ours || r.Spec.SignerName != register.SignerName {
		// The operator may approve or deny for the agents' signer only;
		// another signer's request is that signer's approvers' to decide.
		return ctrl.Result{}, nil
	}
	reason := Check(r, ns)
	if reason == "" {
		var err error
		if reason, err = a.registered(ctx, ns); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, a.decide(ctx, r, ns, reason)
}

// registered says why ns is not a registered cluster's namespace, or "".
func (a *Approver) registered(ctx context.Context, ns string) (string, error) {
	namespace := &corev1.Namespace{}
	err := a.live.Get(ctx, client.ObjectKey{Name: ns}, namespace)
	if apierrors.IsNotFound(err) {
		return fmt.Sprintf("namespace %s does not exist: no cluster is registered there", ns), nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the namespace %s of an agent's certificate request: %w", ns, err)
	}
	if _, ok := namespace.Labels[a.agentOf]; !ok || !namespace.DeletionTimestamp.IsZero() {
		return fmt.Sprintf("namespace %s is not a registered cluster's (label %s) or is being deleted", ns, a.agentOf), nil
	}
	return "", nil
}

// decide approves r when reason is empty, denies it with reason otherwise.
func (a *Approver) decide(ctx context.Context, r *certificatesv1.CertificateSigningRequest, ns, reason string) error {
	condition := certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue,
		Reason: ReasonApproved, Message: "the certificate of the agent of the cluster namespace " + ns + " on the hub",
		LastUpdateTime: metav1.Now()}
	eventType, action := corev1.EventTypeNormal, "Approve"
	if reason != "" {
		condition.Type, condition.Reason, condition.Message = certificatesv1.CertificateDenied, ReasonDenied, reason
		eventType, action = corev1.EventTypeWarning, "Deny"
	}
	r.Status.Conditions = append(r.Status.Conditions, condition)
	if err := a.client.SubResource("approval").Update(ctx, r); err != nil {
		return fmt.Errorf("%s certificate request %s of %s: %w", action, r.Name, r.Spec.Username, err)
	}
	a.recorder.Eventf(r, nil, eventType, condition.Reason, action, "%s", condition.Message)
	ctrl.LoggerFrom(ctx).Info("decided an agent's certificate request", "decision", action, "requester", r.Spec.Username, "reason", reason)
	return nil
}
