package component

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/connections"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/kubeconfig"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/settings"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// connectWait is how long a reconcile waits for a target that is still
// connecting before it gives the worker back and looks again later.
const connectWait = time.Second

// target is one cluster and identity that components write to: its
// connection (client and label-filtered cache, shared with the process's
// other Reconcilers: package connections) and the applier of this
// Reconciler, which remembers what it wrote. Until ready is closed it is
// connecting; then either err is set or the embedded CachedTarget and
// applier are.
type target struct {
	*engine.CachedTarget
	applier *engine.Applier
	cancel  context.CancelFunc
	users   map[types.NamespacedName]bool
	host    string
	since   time.Time // when it started connecting
	ready   chan struct{}
	err     error
	objects *objectWatches // of the objects its components wait for

	watchMu sync.Mutex
	watched map[string]toolscache.ResourceEventHandlerRegistration // kinds with an event handler
	// informers hold the handlers of watched, to be removed when the target
	// stops: the informers are shared, and outlive this Reconciler.
	informers map[string]cache.Informer
	losers    map[types.UID]string // owner label value an object was taken over from
	// registerMu is held while a kind's event handler is added, so that
	// concurrent reconciles add one handler a kind, not one each.
	registerMu sync.Mutex
}

// targetKey identifies a target: kubeconfig (hash), impersonated identity
// and, for an impersonated identity, the namespace its informers watch.
type targetKey struct {
	kubeconfig string
	user       string
	groups     string
	scope      string
}

// targets keeps one target per key, shared by the components that use it,
// and stops a target a minute (targetLinger) after its last component
// releases it. Its lock is never held across a request: targets connect in
// the background.
type targets struct {
	name   string
	local  *rest.Config
	scheme *runtime.Scheme
	reader client.Reader // reads kubeconfig Secrets
	opts   ReconcilerOptions
	// enqueue asks for a reconcile of a component (an object it waits for changed).
	enqueue func(types.NamespacedName)
	// connections are shared with the process's other Reconcilers (nil:
	// connections.Shared).
	connections *connections.Pool

	mu          sync.Mutex
	byKey       map[targetKey]*target
	byComponent map[types.NamespacedName]targetKey
	// down holds the keys whose last connection failed because the
	// cluster did not answer (unreachable.go).
	down map[targetKey]downState
}

// forComponent returns the target of a component, connecting it on first
// use. A target that is still connecting after connectWait is a retriable
// error, so that a slow or dead cluster never holds a worker; one that
// failed to connect is an error that names it, and the next call tries anew.
func (t *targets) forComponent(ctx context.Context, c Component, s settings.Settings) (*target, error) {
	if err := t.checkRefs(c, s); err != nil {
		return nil, err
	}
	cfg, key, err := t.configFor(ctx, c, s)
	if err != nil {
		return nil, err
	}
	id := types.NamespacedName{Namespace: c.GetNamespace(), Name: c.GetName()}
	t.mu.Lock()
	if previous, ok := t.byComponent[id]; ok && previous != key {
		t.releaseLocked(id)
	}
	tg, ok := t.byKey[key]
	if !ok {
		tg = t.startLocked(key, cfg)
	}
	tg.users[id] = true
	t.byComponent[id] = key
	t.mu.Unlock()
	return t.await(ctx, key, tg)
}

// startLocked registers a new target and connects it in the background.
func (t *targets) startLocked(key targetKey, cfg *rest.Config) *target {
	ctx, cancel := context.WithCancel(context.Background())
	cfg = CountRequests(cfg)
	tg := &target{cancel: cancel, host: cfg.Host, since: time.Now(), ready: make(chan struct{}),
		users: map[types.NamespacedName]bool{}, watched: map[string]toolscache.ResourceEventHandlerRegistration{},
		informers: map[string]cache.Informer{},
		objects:   newObjectWatches(ctx, cfg, t.enqueue)}
	t.byKey[key] = tg
	namespaces := t.scopeOf(key)
	go func() {
		defer close(tg.ready)
		tg.err = t.connect(ctx, key, tg, cfg, namespaces)
	}()
	return tg
}

// scopeOf returns the namespaces the informers of key's target watch (nil:
// every namespace): an impersonated identity's placement namespace; the
// operator's own identity on its own cluster, the namespaces it watches
// components in (ReconcilerOptions.Namespaces), where its Roles are; a
// kubeconfig Secret's cluster, every namespace.
func (t *targets) scopeOf(key targetKey) []string {
	switch {
	case key.scope != "":
		return []string{key.scope}
	case key.user == "" && key.kubeconfig == "":
		return t.opts.Namespaces
	}
	return nil
}

// connect gives tg a connection of the process's pool (one per cluster,
// identity and cache options, shared with the other Reconcilers) and an
// applier of its own, with this Reconciler's options.
func (t *targets) connect(ctx context.Context, key targetKey, tg *target, cfg *rest.Config, namespaces []string) error {
	opts := engine.CachedTargetOptions{
		Options: engine.Options{
			Name: t.name, FieldOwner: t.opts.FieldOwner, Defaults: t.opts.Defaults,
			Concurrency: t.opts.Concurrency, Labels: t.opts.DependentLabels, ObjectLabels: t.opts.ObjectLabels,
			TakeOver: t.opts.TakeOver, WriteLoop: t.opts.WriteLoop,
		},
		Namespaces: namespaces, StartTimeout: t.opts.TargetTimeout,
	}
	shared := connections.Key{Local: t.local, Target: fmt.Sprintf("%q", key), Cache: connections.Fingerprint(opts)}
	cached, release, err := t.pool().Acquire(ctx, shared, func(ctx context.Context) (*engine.CachedTarget, error) {
		return engine.NewCachedTarget(ctx, cfg, t.scheme, opts)
	})
	if err != nil {
		return err
	}
	applier, err := engine.NewApplier(cached.Target, opts.Options)
	if err != nil {
		release()
		return err
	}
	context.AfterFunc(ctx, release)
	tg.CachedTarget, tg.applier = cached, applier
	return nil
}

// pool is the pool of connections the targets share (connections.Shared
// unless set).
func (t *targets) pool() *connections.Pool {
	if t.connections != nil {
		return t.connections
	}
	return connections.Shared
}

// await waits a little for a connecting target. A cluster that does not
// answer is an unreachableError (unreachable.go): once its connection
// failed, and while a target connects for longer than connectingBound or
// again after such a failure.
func (t *targets) await(ctx context.Context, key targetKey, tg *target) (*target, error) {
	if err := t.waitReady(ctx, key, tg); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if tg.err == nil {
		delete(t.down, key)
		return tg, nil
	}
	if t.byKey[key] == tg {
		tg.stop()
		delete(t.byKey, key) // the next call connects again
	}
	return nil, Retriable(t.failedLocked(key, tg), 0)
}

// waitReady waits up to connectWait for tg to be connected or failed — not
// at all when its key's cluster is known not to answer, so the worker goes
// back at once — and returns the error of a target still connecting.
func (t *targets) waitReady(ctx context.Context, key targetKey, tg *target) error {
	select {
	case <-tg.ready:
		return nil
	default:
	}
	t.mu.Lock()
	_, down := t.down[key]
	t.mu.Unlock()
	if down {
		return Retriable(t.stillConnecting(key, tg, time.Now()), time.Second)
	}
	wait := time.NewTimer(connectWait)
	defer wait.Stop()
	select {
	case <-tg.ready:
		return nil
	case <-wait.C:
		return Retriable(t.stillConnecting(key, tg, time.Now()), time.Second)
	case <-ctx.Done():
		return fmt.Errorf("connecting to %s: %w", tg.host, ctx.Err())
	}
}

// release stops using the component's target (after its deletion).
func (t *targets) release(id types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.releaseLocked(id)
}

func (t *targets) releaseLocked(id types.NamespacedName) {
	key, ok := t.byComponent[id]
	if !ok {
		return
	}
	delete(t.byComponent, id)
	tg, ok := t.byKey[key]
	if !ok {
		t.forgetDownLocked(key)
		return // it failed to connect and was dropped
	}
	delete(tg.users, id)
	tg.objects.release(id)
	if len(tg.users) == 0 {
		time.AfterFunc(targetLinger, func() { t.stopUnused(key, tg) })
	}
}

// stopWaiting stops the component's wait for an object (ObjectDependency)
// in its target, if it has one: a pass that stops before it looks at those
// objects (suspended, or waiting for a Component) no longer needs them
// watched.
func (t *targets) stopWaiting(id types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tg, ok := t.byKey[t.byComponent[id]]; ok {
		tg.objects.release(id)
	}
}

// targetLinger is how long a target outlives its last component: one that
// is deleted and created again (an uninstall and a reinstall) or the next
// component of a tenant finds its informers listed and its kinds probed.
const targetLinger = time.Minute

// stopUnused stops tg unless a component uses it again.
func (t *targets) stopUnused(key targetKey, tg *target) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(tg.users) == 0 && t.byKey[key] == tg {
		tg.stop()
		delete(t.byKey, key)
	}
}

// stopAll stops every target (when the manager stops).
func (t *targets) stopAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for key, tg := range t.byKey {
		tg.stop()
		delete(t.byKey, key)
	}
}

// configFor builds the rest config of a component's target. An impersonated
// identity (the component's own service account, or the default one of the
// lockdown) is applied to the kubeconfig's too, and scopes the target's
// informers to the component's placement namespace.
func (t *targets) configFor(ctx context.Context, c Component, s settings.Settings) (*rest.Config, targetKey, error) {
	cfg := rest.CopyConfig(t.local)
	var key targetKey
	if s.KubeConfigSecret != "" {
		remote, hash, err := t.remoteConfig(ctx, c.GetNamespace(), s.KubeConfigSecret, s.KubeConfigKey)
		if err != nil {
			return nil, key, err
		}
		cfg, key.kubeconfig = remote, hash
	}
	if s.User != "" {
		cfg.Impersonate = rest.ImpersonationConfig{UserName: s.User, Groups: s.Groups}
		key.user, key.groups = s.User, strings.Join(s.Groups, ",")
		key.scope = s.Namespace
	}
	return cfg, key, nil
}

// checkRefs refuses, with ReconcilerOptions.NoCrossNamespaceRefs, a
// component that places its objects in a namespace other than its own.
func (t *targets) checkRefs(c Component, s settings.Settings) error {
	if t.opts.NoCrossNamespaceRefs && s.Namespace != c.GetNamespace() {
		return fmt.Errorf("placement namespace %s is not the component's namespace %s: cross-namespace references are refused (NoCrossNamespaceRefs, --no-cross-namespace-refs)", s.Namespace, c.GetNamespace())
	}
	return nil
}

func (t *targets) remoteConfig(ctx context.Context, namespace, name, dataKey string) (*rest.Config, string, error) {
	if dataKey == "" {
		dataKey = "value"
	}
	var secret corev1.Secret
	if err := t.reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &secret); err != nil {
		return nil, "", fmt.Errorf("reading kubeconfig Secret %s/%s: %w", namespace, name, err)
	}
	data, ok := secret.Data[dataKey]
	if !ok {
		return nil, "", &manifests.UserError{Err: fmt.Errorf("kubeconfig Secret %s/%s has no key %q", namespace, name, dataKey)}
	}
	source := fmt.Sprintf("Secret %s/%s, key %q", namespace, name, dataKey)
	cfg, err := kubeconfig.FromSecret(data, source, t.opts.InsecureKubeConfigExec)
	if err != nil {
		return nil, "", &manifests.UserError{Err: err}
	}
	sum := sha256.Sum256(data)
	return cfg, hex.EncodeToString(sum[:]), nil
}
