package fleet

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

// The set's copies of its clusters' kubeconfigs. A cluster's Component
// reads its kubeconfig whenever it reconciles, and its finalizer needs it
// to delete the objects on the cluster; a cluster usually leaves a fleet
// with its Secret (decommissioned, or Cluster API deleting the Cluster and
// its <cluster>-kubeconfig Secret together), so the set keeps a copy of
// what the Component needs, and points the Component to it once the
// Secret is gone (departure.go). The copy holds the kubeconfig key only, in
// the same namespace as the Secret (so whoever may read it could read the
// Secret), without the Secret's labels and annotations but with a label of
// its own (<operator>/set-copy, which its cache selects), and it is owned by
// the Component: the garbage collector removes it when the Component is
// gone, whichever way that happens.

// copyName is the name of the set's copy of the kubeconfig of the
// Component component.
func copyName(component string) string { return component + copySuffix }

// keepCopies keeps the set's copy of each owned Component's kubeconfig
// current, for those whose Secret exists. A Secret's data is read only when
// its resourceVersion differs from the one the copy was made of.
func (r *Reconciler) keepCopies(ctx context.Context, owned map[string]*v1alpha1.Component) error {
	var errs []error
	for _, name := range sortedKeys(owned) {
		c := owned[name]
		if c.Spec.KubeConfig == nil || c.Spec.KubeConfig.Name == copyName(c.Name) || !c.DeletionTimestamp.IsZero() {
			continue
		}
		errs = append(errs, r.keepCopy(ctx, c))
	}
	return errors.Join(errs...)
}

// keepCopy writes the copy of c's kubeconfig when it is missing or was made
// of another version of the Secret.
func (r *Reconciler) keepCopy(ctx context.Context, c *v1alpha1.Component) error {
	original, found, err := r.cachedSecret(ctx, c.Namespace, c.Spec.KubeConfig.Name)
	if err != nil || !found {
		return err // no Secret: nothing to copy; a departure decides
	}
	copied, found, err := r.cachedSecret(ctx, c.Namespace, copyName(c.Name))
	if err != nil {
		return err
	}
	if found && !metav1.IsControlledBy(copied, c) {
		return notTheCopy(c, copied.Name)
	}
	version := string(original.UID) + "/" + original.ResourceVersion
	if found && copied.Annotations[r.keys.copyOf] == original.Name && copied.Annotations[r.keys.copyVersion] == version &&
		copied.Labels[r.keys.copy] == "true" {
		return nil
	}
	desired, err := r.copyOf(ctx, c)
	if err != nil || desired == nil {
		return err
	}
	if found {
		desired.ResourceVersion = copied.ResourceVersion
		err = r.client.Update(ctx, desired)
	} else {
		err = r.client.Create(ctx, desired)
	}
	if apierrors.IsAlreadyExists(err) {
		err = r.replaceUnlabelledCopy(ctx, c, desired)
	}
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		return nil // the cache was behind: the next pass looks again
	}
	if err != nil {
		return fmt.Errorf("writing Secret %s/%s, the set's copy of the kubeconfig of Component %s: %w", c.Namespace, desired.Name, c.Name, err)
	}
	return nil
}

// replaceUnlabelledCopy updates with desired the copy of c's kubeconfig
// that exists although the cache of copies does not hold it, when it was
// made before the copies carried their label, which its cache selects. A
// labelled one is new to the cache: the next pass sees it there.
func (r *Reconciler) replaceUnlabelledCopy(ctx context.Context, c *v1alpha1.Component, desired *corev1.Secret) error {
	live, found, err := r.secretMetadata(ctx, r.live, c.Namespace, desired.Name)
	if err != nil || !found {
		return err
	}
	if !metav1.IsControlledBy(live, c) {
		return notTheCopy(c, live.Name)
	}
	if live.Labels[r.keys.copy] == "true" {
		return nil
	}
	desired.ResourceVersion = live.ResourceVersion
	return r.client.Update(ctx, desired)
}

// notTheCopy is the error of a Secret of the copy's name that c does not
// own.
func notTheCopy(c *v1alpha1.Component, name string) error {
	return fmt.Errorf("keeping a copy of the kubeconfig of Component %s/%s: Secret %s exists and is not the set's copy (its owner is not the Component); rename it",
		c.Namespace, c.Name, name)
}

// copyOf reads c's kubeconfig Secret from the API server and returns the
// copy to write: its kubeconfig key only, owned by c; nil when the Secret
// or the key is gone (the Component says which).
func (r *Reconciler) copyOf(ctx context.Context, c *v1alpha1.Component) (*corev1.Secret, error) {
	ref := c.Spec.KubeConfig
	key := ref.Key
	if key == "" {
		key = defaultKubeConfigKey
	}
	secret := &corev1.Secret{}
	if err := r.live.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: ref.Name}, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading kubeconfig Secret %s/%s to keep a copy of it: %w", c.Namespace, ref.Name, err)
	}
	data, ok := secret.Data[key]
	if !ok {
		return nil, nil
	}
	copied := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: copyName(c.Name), Labels: map[string]string{r.keys.copy: "true"},
			Annotations: map[string]string{r.keys.copyOf: secret.Name, r.keys.copyVersion: string(secret.UID) + "/" + secret.ResourceVersion}},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{key: data},
	}
	if err := controllerutil.SetControllerReference(c, copied, r.client.Scheme()); err != nil {
		return nil, fmt.Errorf("owning the copy of the kubeconfig of Component %s/%s: %w", c.Namespace, c.Name, err)
	}
	return copied, nil
}

// secretMetadata reads the metadata of the Secret namespace/name with
// reader; found is false when it does not exist.
func (r *Reconciler) secretMetadata(ctx context.Context, reader client.Reader, namespace, name string) (*metav1.PartialObjectMetadata, bool, error) {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, m)
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading Secret %s/%s: %w", namespace, name, err)
	}
	return m, true, nil
}
