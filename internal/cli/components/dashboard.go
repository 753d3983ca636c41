package components

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/dashboard"
)

// defaultDashboardPort is where wavekit dashboard listens on 127.0.0.1.
const defaultDashboardPort = 8090

// dashboardSyncTimeout bounds the first list of Components and Events: a
// user who may not list them gets an error instead of an empty page.
const dashboardSyncTimeout = 30 * time.Second

// componentKind is the reference operator's kind, as the page reads it.
var componentKind = schema.GroupVersionKind{Group: "wavekit.dev", Version: "v1alpha1", Kind: "Component"}

// NewDashboardCommand is dashboard: the status page of the Components, served
// on 127.0.0.1 with the user's identity.
func NewDashboardCommand(s *session.Session) *cobra.Command {
	var port int
	var all, readOnly bool
	cmd := &cobra.Command{
		Use:   "dashboard",
		Short: "Serve the status page of the Components on 127.0.0.1",
		Long: `dashboard serves the status page of the reference operator's Components
(the page the operator serves with --web-bind-address) on 127.0.0.1, read
with your own kubeconfig: your RBAC decides what it shows. It watches the
Components and Events of the namespace (-n, else the context's) or of every
namespace (-A), prints the page's URL, opens nothing, and serves until
interrupted. Its buttons reconcile, suspend, resume and roll back as you:
the API server decides with your RBAC (patch on the Component), and each
action is an Event on the Component that names you; --read-only has none.
It answers requests for 127.0.0.1 and localhost only.`,
		Example: `  wavekit dashboard -A
  wavekit dashboard -n apps --port 9000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDashboard(cmd.Context(), s, port, all, readOnly)
		},
	}
	cmd.Flags().IntVar(&port, "port", defaultDashboardPort, "port on 127.0.0.1 (0: any free port)")
	cmd.Flags().BoolVarP(&all, "all-namespaces", "A", false, "show the Components of every namespace")
	cmd.Flags().BoolVar(&readOnly, "read-only", false, "offer no action (reconcile, suspend, resume, roll back)")
	return cmd
}

func runDashboard(ctx context.Context, s *session.Session, port int, all, readOnly bool) error {
	if port < 0 || port > 65535 {
		return fmt.Errorf("--port %d: give 0 to 65535", port)
	}
	cl, err := s.Connect(ctx)
	if err != nil {
		return err
	}
	scope, cacheOpts := "every namespace", cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
	if !all {
		scope, cacheOpts.DefaultNamespaces = "namespace "+cl.Namespace, map[string]cache.Config{cl.Namespace: {}}
	}
	informers, err := cache.New(cl.Config, cacheOpts)
	if err != nil {
		return fmt.Errorf("watching the cluster: %w", err)
	}
	opts := dashboard.Options{Kinds: []schema.GroupVersionKind{componentKind}}
	if !readOnly {
		if opts.Actions, err = localActions(ctx, s, cl); err != nil {
			return err
		}
	}
	page, err := dashboard.New(ctx, informers, cl.Client.RESTMapper(), opts)
	if err != nil {
		return err
	}
	go func() { _ = informers.Start(ctx) }()
	if err := waitForCache(ctx, informers, scope); err != nil {
		return err
	}
	listener, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("listening on 127.0.0.1:%d: %w", port, err)
	}
	fmt.Fprintf(s.Stdout, "The status page of the Components of %s: http://%s/ (Ctrl-C stops it)\n", scope, listener.Addr())
	err = dashboard.Serve(ctx, listener, page)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// waitForCache waits until the Components and Events are listed.
func waitForCache(ctx context.Context, informers cache.Cache, scope string) error {
	syncCtx, cancel := context.WithTimeout(ctx, dashboardSyncTimeout)
	defer cancel()
	if informers.WaitForCacheSync(syncCtx) {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return errors.New("could not list the Components and Events of " + scope + " within " + dashboardSyncTimeout.String() +
		": may you list them (kubectl auth can-i list components.wavekit.dev)? With -A you need the right in every namespace")
}

// localActions are the page's actions as the kubeconfig's user: its
// client writes, its Events name the user a SelfSubjectReview gives.
func localActions(ctx context.Context, s *session.Session, cl *session.Cluster) (*dashboard.Actions, error) {
	clientset, err := kubernetes.NewForConfig(cl.Config)
	if err != nil {
		return nil, fmt.Errorf("connecting to the cluster: %w", err)
	}
	user := "the kubeconfig's user"
	if review, err := clientset.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{}); err == nil && review.Status.UserInfo.Username != "" {
		user = review.Status.UserInfo.Username
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: clientset.EventsV1()})
	if err := broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		return nil, fmt.Errorf("recording Events: %w", err)
	}
	context.AfterFunc(ctx, broadcaster.Shutdown)
	return &dashboard.Actions{Client: cl.Client, Recorder: broadcaster.NewRecorder(clientgoscheme.Scheme, "wavekit-dashboard"),
		OperatorName: s.OperatorName, User: user}, nil
}
