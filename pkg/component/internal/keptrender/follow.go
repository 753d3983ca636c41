package keptrender

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
)

// Follow reads (or creates) the keys, then follows their Secret until ctx
// ends, with a watch of that one Secret (list and watch by its name: RBAC
// may grant them with resourceNames): a rotation asked for on it is made,
// and a new active key, made here or by another replica, is taken up and
// told to the OnRotate functions. Without the right to list and watch it,
// a rotation asked for is made at the next start. A deleted Secret changes
// nothing while the operator runs; the next start creates a new key, and
// every kept render is rendered again. cfg is the operator's connection.
//
// The Follow calls under way on one Keys (the Reconcilers that share it,
// see Shared) share one watch, which ends when the last of them does.
func (k *Keys) Follow(ctx context.Context, cfg *rest.Config, log logr.Logger) error {
	k.mu.Lock()
	k.followers++
	if k.followers == 1 {
		watchCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
		k.unfollow = stop
		go func() {
			if err := k.follow(watchCtx, cfg, log); err != nil {
				log.Error(err, "rotations asked for on the key Secret are taken up at the next start only", "secret", k.secret)
			}
		}()
	}
	k.mu.Unlock()
	<-ctx.Done()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.followers--; k.followers == 0 {
		k.unfollow()
	}
	return nil
}

// follow is Follow's one watch, until ctx ends.
func (k *Keys) follow(ctx context.Context, cfg *rest.Config, log logr.Logger) error {
	if _, err := k.load(ctx); err != nil {
		// Each pass that keeps or reads a render tries again and says why.
		log.Error(err, "the keys of kept renders cannot be read yet", "secret", k.secret)
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("following the keys of kept renders: %w", err)
	}
	byName := fields.OneTermEqualSelector("metadata.name", k.secret.Name).String()
	lw := toolscache.NewFilteredListWatchFromClient(clientset.CoreV1().RESTClient(), "secrets", k.secret.Namespace,
		func(o *metav1.ListOptions) { o.FieldSelector = byName })
	take := func(obj any) {
		if secret, ok := obj.(*corev1.Secret); ok {
			k.observe(ctx, log, secret)
		}
	}
	informer := toolscache.NewSharedIndexInformerWithOptions(lw, &corev1.Secret{}, toolscache.SharedIndexInformerOptions{})
	if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: take, UpdateFunc: func(_, obj any) { take(obj) }}); err != nil {
		return fmt.Errorf("following the keys of kept renders: %w", err)
	}
	// Without the right to list and watch that Secret the keys still seal
	// and open; only a rotation asked for on the Secret waits for a restart.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	_ = informer.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *toolscache.Reflector, err error) {
		if apierrors.IsForbidden(err) {
			log.Info("rotations asked for on the key Secret are taken up at the next start only: it may not be listed and watched", "secret", k.secret, "error", err.Error())
			k.mu.Lock()
			read := k.read
			k.mu.Unlock()
			if read != nil {
				k.observe(ctx, log, read) // a rotation asked for before this start
			}
			stop()
			return
		}
		toolscache.DefaultWatchErrorHandler(ctx, r, err)
	})
	informer.RunWithContext(ctx)
	return nil
}
