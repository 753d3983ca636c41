package alert

import (
	"context"
	"fmt"
	"os/user"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/alerts"
	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/notify"
	"github.com/wavekit-dev/wavekit/pkg/notify/notifiers"
)

// The alert verbs, on the Providers of the reference operator
// (docs/notifications.md).

// NewCommand is alert: its verb test sends a test alert through a Provider.
func NewCommand(s *session.Session) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "alert",
		Short: "Work with the alerts that Alerts and Providers send",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newAlertTestCommand(s))
	return cmd
}

type alertTestOptions struct {
	message, revision string
	timeout           time.Duration
}

func newAlertTestCommand(s *session.Session) *cobra.Command {
	o := &alertTestOptions{}
	cmd := &cobra.Command{
		Use:   "test NAMESPACE/PROVIDER",
		Short: "Send a test alert through a Provider, to see the message before it matters",
		Long: `test sends one alert of kind Test through a Provider, now, the way the operator
sends alerts: it reads the Provider and the Secret it names with your own
identity (so you must be allowed to get that Secret), builds the same sender
the operator builds, and posts once, without the operator's retries, rate
limit or deduplication. It prints where the alert went, by the receiver's
scheme and host only (a webhook URL is a credential), or what went wrong:
a missing Secret key, a receiver that refused the alert and what it answered.

A github Provider sets a commit status: give --revision, a commit of the
Provider's repository (the status says "Test: ...", state success).`,
		Example: `  wavekit alert test shop/slack
  wavekit alert test slack -n shop --message "hello from the platform team"
  kubectl wavekit alert test shop/github --revision 0123456789abcdef0123456789abcdef01234567`,
		Args: session.ExactArgs("NAMESPACE/PROVIDER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), s, args[0])
		},
	}
	cmd.Flags().StringVar(&o.message, "message", "", "the alert's message (default: one that says who sent it and through which Provider)")
	cmd.Flags().StringVar(&o.revision, "revision", "", "the source revision of the alert: for a github Provider, the commit whose status is set")
	cmd.Flags().DurationVar(&o.timeout, "timeout", notify.DefaultTimeout, "how long the receiver may take to answer")
	return cmd
}

func (o *alertTestOptions) run(ctx context.Context, s *session.Session, ref string) error {
	cl, err := session.OperatorCluster(ctx, s)
	if err != nil {
		return err
	}
	id := session.ObjectName(ref, cl.Namespace)
	provider := &v1alpha1.Provider{}
	if err := cl.Client.Get(ctx, id, provider); err != nil {
		return providerReadError(id.String(), err)
	}
	if provider.Spec.Type == v1alpha1.ProviderGitHub && notifiers.CommitOf(o.revision) == "" {
		return fmt.Errorf("Provider %s is of type github: it sets the status of a Git commit; give --revision with a commit (40 hex digits) of %s", id, provider.Spec.Address)
	}
	secret, err := alerts.ReadSecret(ctx, cl.Client, provider)
	if apierrors.IsForbidden(err) {
		return session.Hint(err, "the test reads the Provider's Secret as you: ask for get on it, or have someone who may run the test")
	}
	if err != nil {
		return err
	}
	n, err := alerts.NotifierFor(provider, secret)
	if err != nil {
		return err
	}
	sendCtx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	err = n.Notify(sendCtx, o.event(provider))
	if reason, skipped := notify.SkipReason(err); skipped {
		fmt.Fprintf(s.Stdout, "Provider %s (%s) sent nothing: %s\n", id, provider.Spec.Type, skipReasonWords(reason))
		return nil
	}
	if err != nil {
		return fmt.Errorf("sending a test alert through Provider %s (%s): %w", id, provider.Spec.Type, err)
	}
	fmt.Fprintf(s.Stdout, "sent a test alert through Provider %s (%s) to %s\n", id, provider.Spec.Type, receiverOf(provider, secret))
	if provider.Spec.Suspend {
		fmt.Fprintf(s.Stderr, "note: Provider %s is suspended: the operator sends nothing through it until spec.suspend is false\n", id)
	}
	return nil
}

// event is the test alert, about the Provider itself.
func (o *alertTestOptions) event(provider *v1alpha1.Provider) notify.Event {
	message := o.message
	if message == "" {
		message = fmt.Sprintf("a test alert from wavekit alert test%s: Provider %s/%s works", sender(), provider.Namespace, provider.Name)
	}
	return notify.Event{Kind: notify.KindTest, Severity: notify.SeverityInfo, Reason: "Test", Message: notify.Bound(message, notify.MaxMessageBytes),
		Object: notify.Object{APIVersion: v1alpha1.GroupVersion.String(), Kind: "Provider", Namespace: provider.Namespace,
			Name: provider.Name, UID: string(provider.UID)},
		Revision: o.revision, Time: time.Now(), Operator: "wavekit alert test"}
}

// sender is " by <login name>", or "" when it is not known.
func sender() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return " by " + u.Username
	}
	return ""
}

// receiverOf names where a Provider sends, by scheme and host.
func receiverOf(provider *v1alpha1.Provider, secret map[string][]byte) string {
	if provider.Spec.Type == v1alpha1.ProviderGitHub {
		api := provider.Spec.APIURL
		if api == "" {
			api = notifiers.DefaultGitHubAPI
		}
		return notifiers.Redact(api) + " (" + provider.Spec.Address + ")"
	}
	if address, ok := secret[v1alpha1.ProviderAddressKey]; ok {
		return notifiers.Redact(string(address))
	}
	return notifiers.Redact(provider.Spec.Address)
}

func skipReasonWords(reason string) string {
	switch reason {
	case "unchanged":
		return "the commit's latest status of this context says the same already"
	case "not_applicable":
		return "the receiver takes no such alert"
	}
	return reason
}

// providerReadError says why the Provider id cannot be read.
func providerReadError(id string, err error) error {
	switch {
	case meta.IsNoMatchError(err):
		return fmt.Errorf("reading Provider %s: the cluster does not serve Providers (%s): install the reference operator's CRDs of this release", id, v1alpha1.GroupVersion)
	case apierrors.IsNotFound(err):
		return session.Hint(fmt.Errorf("Provider %s not found", id), "list them with: kubectl get providers.wavekit.dev -A")
	}
	return fmt.Errorf("reading Provider %s: %w", id, err)
}
