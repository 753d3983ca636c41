package component

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// target is one cluster and identity that components write to: its client,
// its label-filtered cache and the applier that remembers what it wrote.
type target struct {
	*manifests.CachedTarget
	applier *manifests.Applier
	cancel  context.CancelFunc
	users   map[types.NamespacedName]bool

	watchMu sync.Mutex
	watched map[string]bool // kinds with an event handler
}

// targetKey identifies a target: kubeconfig (hash) and impersonated identity.
type targetKey struct {
	kubeconfig string
	user       string
	groups     string
}

// targets keeps one target per key, shared by the components that use it,
// and stops a target when its last component releases it.
type targets struct {
	name   string
	local  *rest.Config
	scheme *runtime.Scheme
	reader client.Reader // reads kubeconfig Secrets
	opts   ReconcilerOptions

	mu          sync.Mutex
	byKey       map[targetKey]*target
	byComponent map[types.NamespacedName]targetKey
}

// forComponent returns the target of a component, creating it on first use.
func (t *targets) forComponent(ctx context.Context, c Component) (*target, error) {
	cfg, key, err := t.configFor(ctx, c)
	if err != nil {
		return nil, err
	}
	id := types.NamespacedName{Namespace: c.GetNamespace(), Name: c.GetName()}
	t.mu.Lock()
	defer t.mu.Unlock()
	if previous, ok := t.byComponent[id]; ok && previous != key {
		t.releaseLocked(id)
	}
	tg, ok := t.byKey[key]
	if !ok {
		if tg, err = t.start(cfg); err != nil {
			return nil, err
		}
		t.byKey[key] = tg
	}
	tg.users[id] = true
	t.byComponent[id] = key
	return tg, nil
}

func (t *targets) start(cfg *rest.Config) (*target, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cached, err := manifests.NewCachedTarget(ctx, countRequests(cfg), t.name, t.scheme)
	if err != nil {
		cancel()
		return nil, err
	}
	applier, err := manifests.NewApplier(cached.Target, manifests.Options{
		Name: t.name, FieldOwner: t.opts.FieldOwner, Defaults: t.opts.Defaults,
		Concurrency: t.opts.Concurrency, SkipMissingNamespaces: t.opts.SkipMissingNamespaces,
	})
	if err != nil {
		cancel()
		return nil, err
	}
	return &target{CachedTarget: cached, applier: applier, cancel: cancel,
		users: map[types.NamespacedName]bool{}, watched: map[string]bool{}}, nil
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
	tg := t.byKey[key]
	delete(tg.users, id)
	if len(tg.users) == 0 {
		tg.cancel()
		delete(t.byKey, key)
	}
}

// stopAll stops every target (when the manager stops).
func (t *targets) stopAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for key, tg := range t.byKey {
		tg.cancel()
		delete(t.byKey, key)
	}
}

// configFor builds the rest config of a component's target.
func (t *targets) configFor(ctx context.Context, c Component) (*rest.Config, targetKey, error) {
	cfg := rest.CopyConfig(t.local)
	var key targetKey
	if cc, ok := optional[ClientConfiguration](c); ok {
		if name, dataKey := cc.GetKubeConfigSecret(); name != "" {
			remote, hash, err := t.remoteConfig(ctx, c.GetNamespace(), name, dataKey)
			if err != nil {
				return nil, key, err
			}
			cfg, key.kubeconfig = remote, hash
		}
	}
	if ic, ok := optional[ImpersonationConfiguration](c); ok && ic.GetImpersonationUser() != "" {
		cfg.Impersonate = rest.ImpersonationConfig{UserName: ic.GetImpersonationUser(), Groups: ic.GetImpersonationGroups()}
		key.user, key.groups = ic.GetImpersonationUser(), strings.Join(ic.GetImpersonationGroups(), ",")
	}
	return cfg, key, nil
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
		return nil, "", fmt.Errorf("kubeconfig Secret %s/%s has no key %q", namespace, name, dataKey)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig in Secret %s/%s, key %q: %w", namespace, name, dataKey, err)
	}
	sum := sha256.Sum256(data)
	return cfg, hex.EncodeToString(sum[:]), nil
}
