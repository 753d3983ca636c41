package receiver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Bounds of a connection: headers within readHeaderTimeout and under
// maxHeaderBytes, the whole request within readTimeout, the answer within
// writeTimeout.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = time.Minute
	maxHeaderBytes    = 64 << 10
	shutdownTimeout   = 5 * time.Second
)

// Setup serves the Receivers' paths on address while mgr runs, on every
// replica (leader or not), and registers the controller that writes their
// status (as the leader); "" leaves both off. operator is the operator
// name, the prefix of the annotation a request sets. When the API server
// does not serve Receivers (a CRD of an older release), it says so and
// serves nothing. The controller watches the Secrets of namespaces (give
// the manager cache's; nil: all), which the Receivers name.
func Setup(mgr ctrl.Manager, operator, address string, namespaces map[string]cache.Config) error {
	if address == "" {
		return nil
	}
	log := mgr.GetLogger().WithName("receiver")
	gvk := v1alpha1.GroupVersion.WithKind("Receiver")
	if _, err := mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
		if meta.IsNoMatchError(err) {
			log.Info("the API server does not serve Receivers: the receiver endpoint is off; apply the CRD of config/crd/bases and restart to turn it on")
			return nil
		}
		return fmt.Errorf("looking up the Receiver kind: %w", err)
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &v1alpha1.Receiver{}, pathIndex, indexPath); err != nil {
		return fmt.Errorf("indexing Receivers by path: %w", err)
	}
	if err := setupController(mgr, &statusReconciler{client: mgr.GetClient(), secrets: mgr.GetAPIReader()}, namespaces); err != nil {
		return err
	}
	limits, err := newLimits()
	if err != nil {
		return err
	}
	hooks := &webhooks{
		source: &clusterSource{cache: mgr.GetClient(), secret: mgr.GetAPIReader(), settle: pathSettle},
		asker: &clusterAsker{reader: mgr.GetAPIReader(), writer: mgr.GetClient(),
			key: manifests.Key(operator, component.AnnotationReconcileRequestedAt), now: time.Now},
		limits: limits, replays: newReplays(), now: time.Now, log: log,
	}
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return fmt.Errorf("receiver: listening on %s: %w", address, err)
	}
	log.Info("taking webhooks", "address", listener.Addr().String())
	shutdown := shutdownTimeout
	return mgr.Add(&manager.Server{Name: "receiver", Listener: listener, ShutdownTimeout: &shutdown, Server: &http.Server{
		Handler: hooks, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, WriteTimeout: writeTimeout,
		IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes,
	}})
}
