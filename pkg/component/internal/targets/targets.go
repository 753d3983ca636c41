package targets

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
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/connections"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/kubeconfig"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/settings"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// connectWait is how long a reconcile waits for a target that is still
// connecting before it gives the worker back and looks again later.
const connectWait = time.Second

// targetKey identifies a target: kubeconfig (hash), impersonated identity
// and, for an impersonated identity, the namespace its informers watch.
type targetKey struct {
	kubeconfig string
	user       string
	groups     string
	scope      string
}

// Set keeps one target per key, shared by the components of one
// Reconciler that use it, and stops a target a minute (targetLinger) after
// its last component releases it. Its lock is never held across a request:
// targets connect in the background.
type Set struct {
	local  *rest.Config
	scheme *runtime.Scheme
	reader client.Reader // reads kubeconfig Secrets
	opts   Options
	// enqueue asks for a reconcile of a component (an object it waits for changed).
	enqueue func(types.NamespacedName)

	mu          sync.Mutex
	byKey       map[targetKey]*Target
	byComponent map[types.NamespacedName]targetKey
	// down holds the keys whose last connection failed because the
	// cluster did not answer (unreachable.go).
	down map[targetKey]downState
}

// Options are what a Set makes its targets with.
type Options struct {
	// Applier are the options of each target's applier and cache
	// (engine.Options: Name, the operator's, is required).
	Applier engine.Options
	// Namespaces are the namespaces the targets of the operator's own
	// identity watch (nil: every namespace).
	Namespaces []string
	// StartTimeout bounds a target's first requests.
	StartTimeout time.Duration
	// NoCrossNamespaceRefs refuses a component that places its objects in
	// a namespace other than its own.
	NoCrossNamespaceRefs bool
	// InsecureKubeConfigExec lets a kubeconfig Secret run a credential
	// plugin.
	InsecureKubeConfigExec bool
	// Wrap wraps the config of each target (the request counter), if set.
	Wrap func(*rest.Config) *rest.Config
	// Connections are shared with the process's other Reconcilers (nil:
	// connections.Shared).
	Connections *connections.Pool
}

// New returns a Set of targets reached from local (the manager's config),
// reading kubeconfig Secrets with reader; enqueue asks for a reconcile of a
// component whose awaited object changed.
func New(local *rest.Config, scheme *runtime.Scheme, reader client.Reader, opts Options, enqueue func(types.NamespacedName)) *Set {
	return &Set{local: local, scheme: scheme, reader: reader, opts: opts, enqueue: enqueue,
		byKey: map[targetKey]*Target{}, byComponent: map[types.NamespacedName]targetKey{}}
}

// Local is the config of the operator's own cluster.
func (t *Set) Local() *rest.Config { return t.local }

// For returns the target of a component, connecting it on first
// use. A target that is still connecting after connectWait is a retriable
// error, so that a slow or dead cluster never holds a worker; one that
// failed to connect is an error that names it, and the next call tries anew.
func (t *Set) For(ctx context.Context, c api.Component, s settings.Settings) (*Target, error) {
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
func (t *Set) startLocked(key targetKey, cfg *rest.Config) *Target {
	ctx, cancel := context.WithCancel(context.Background())
	if t.opts.Wrap != nil {
		cfg = t.opts.Wrap(cfg)
	}
	tg := &Target{cancel: cancel, Host: cfg.Host, since: time.Now(), ready: make(chan struct{}),
		users: map[types.NamespacedName]bool{}, watched: map[string]func() error{},
		Objects: newObjectWatches(ctx, cfg, t.enqueue)}
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
func (t *Set) scopeOf(key targetKey) []string {
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
func (t *Set) connect(ctx context.Context, key targetKey, tg *Target, cfg *rest.Config, namespaces []string) error {
	opts := engine.CachedTargetOptions{Options: t.opts.Applier, Namespaces: namespaces, StartTimeout: t.opts.StartTimeout}
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
	tg.CachedTarget, tg.Applier, tg.Handlers = cached, applier, t.pool().Handlers()
	return nil
}

// pool is the pool of connections the targets share (connections.Shared
// unless set).
func (t *Set) pool() *connections.Pool {
	if t.opts.Connections != nil {
		return t.opts.Connections
	}
	return connections.Shared
}

// await waits a little for a connecting target. A cluster that does not
// answer is an unreachableError (unreachable.go): once its connection
// failed, and while a target connects for longer than connectingBound or
// again after such a failure.
func (t *Set) await(ctx context.Context, key targetKey, tg *Target) (*Target, error) {
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
	return nil, api.Retriable(t.failedLocked(key, tg), 0)
}

// waitReady waits up to connectWait for tg to be connected or failed — not
// at all when its key's cluster is known not to answer, so the worker goes
// back at once — and returns the error of a target still connecting.
func (t *Set) waitReady(ctx context.Context, key targetKey, tg *Target) error {
	select {
	case <-tg.ready:
		return nil
	default:
	}
	t.mu.Lock()
	_, down := t.down[key]
	t.mu.Unlock()
	if down {
		return api.Retriable(t.stillConnecting(key, tg, time.Now()), time.Second)
	}
	wait := time.NewTimer(connectWait)
	defer wait.Stop()
	select {
	case <-tg.ready:
		return nil
	case <-wait.C:
		return api.Retriable(t.stillConnecting(key, tg, time.Now()), time.Second)
	case <-ctx.Done():
		return fmt.Errorf("connecting to %s: %w", tg.Host, ctx.Err())
	}
}

// Release stops using the component's target (after its deletion).
func (t *Set) Release(id types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.releaseLocked(id)
}

func (t *Set) releaseLocked(id types.NamespacedName) {
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
	tg.Objects.Release(id)
	if len(tg.users) == 0 {
		time.AfterFunc(targetLinger, func() { t.stopUnused(key, tg) })
	}
}

// StopWaiting stops the component's wait for an object (ObjectDependency)
// in its target, if it has one: a pass that stops before it looks at those
// objects (suspended, or waiting for a Component) no longer needs them
// watched.
func (t *Set) StopWaiting(id types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tg, ok := t.byKey[t.byComponent[id]]; ok {
		tg.Objects.Release(id)
	}
}

// targetLinger is how long a target outlives its last component: one that
// is deleted and created again (an uninstall and a reinstall) or the next
// component of a tenant finds its informers listed and its kinds probed.
const targetLinger = time.Minute

// stopUnused stops tg unless a component uses it again.
func (t *Set) stopUnused(key targetKey, tg *Target) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(tg.users) == 0 && t.byKey[key] == tg {
		tg.stop()
		delete(t.byKey, key)
	}
}

// StopAll stops every target (when the manager stops).
func (t *Set) StopAll() {
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
func (t *Set) configFor(ctx context.Context, c api.Component, s settings.Settings) (*rest.Config, targetKey, error) {
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
func (t *Set) checkRefs(c api.Component, s settings.Settings) error {
	if t.opts.NoCrossNamespaceRefs && s.Namespace != c.GetNamespace() {
		return fmt.Errorf("placement namespace %s is not the component's namespace %s: cross-namespace references are refused (NoCrossNamespaceRefs, --no-cross-namespace-refs)", s.Namespace, c.GetNamespace())
	}
	return nil
}

func (t *Set) remoteConfig(ctx context.Context, namespace, name, dataKey string) (*rest.Config, string, error) {
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

// ConfigOf returns a config that reaches host (a hostKey): the operator's
// own, or a target's; nil when no target of that host is known.
func (t *Set) ConfigOf(host string) *rest.Config {
	if HostKey(t.local.Host) == host {
		return t.local
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tg := range t.byKey {
		if HostKey(tg.Host) == host && tg.Objects != nil {
			return tg.Objects.config
		}
	}
	return nil
}

// Connecting tells whether the component's target is still connecting.
func (t *Set) Connecting(c api.Component) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	tg, ok := t.byKey[t.byComponent[types.NamespacedName{Namespace: c.GetNamespace(), Name: c.GetName()}]]
	if !ok {
		return false
	}
	select {
	case <-tg.ready:
		return false
	default:
		return true
	}
}
