package releases

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/sealing"
)

// A release's Secret holds the objects of its revisions (the history, for
// rollback and test) and its delete hooks: a chart's Secrets, generated
// passwords and keys, values the user kept out of sight. They are sealed
// (pkg/sealing) with a key of the release's own Secret
// wavekit-keys.<NAME> in the release namespace, made by the first apply
// and deleted with the release; the rest of the record (inventory, drift
// settings, health checks, state) stays readable. This keeps the values
// out of the record: out of an export or a backup of release Secrets, out
// of what scans them, apart from the key under RBAC of its own. It is no
// barrier to an identity that may read every Secret of the namespace,
// which may read the applied Secrets anyway (docs/security-secrets.md).
const (
	keySealed        = "sealed"                  // JSON of the sealed entries (name: content), gzipped, sealed
	annReleaseKey    = "wavekit.dev/release-key" // the ID of the key that sealed them
	releaseKeyPrefix = "wavekit-keys."
)

// sealedEntries are the entries of a release's Secret that hold rendered objects.
var sealedEntries = []string{keyHistory, keyHistoryGz, keyHooks, keyHooksGz}

// releaseKey names the Secret of the key of release name in namespace.
func releaseKey(namespace, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: namespace, Name: releaseKeyPrefix + name}
}

// sealRelease moves the entries of secret (the record of release rel) that
// hold rendered objects into one sealed entry, with the release's key,
// made by the first apply.
func sealRelease(ctx context.Context, c client.Client, rel *release, secret *corev1.Secret) error {
	entries := map[string][]byte{}
	for _, name := range sealedEntries {
		if content, ok := secret.Data[name]; ok {
			entries[name] = content
			delete(secret.Data, name)
		}
	}
	if len(entries) == 0 {
		return nil
	}
	ring, _, _, err := sealing.Ensure(ctx, c, c, releaseKey(rel.Namespace, rel.Name), metav1.ObjectMeta{Labels: map[string]string{labelRelease: rel.Name}})
	if err != nil {
		return fmt.Errorf("the key of release %s: %w", rel, err)
	}
	encoded, err := json.Marshal(entries)
	if err == nil {
		encoded, err = manifests.Compress(encoded)
	}
	if err != nil {
		return fmt.Errorf("sealing the history of release %s: %w", rel, err)
	}
	id, sealed, err := ring.Seal(releaseAAD(secret), encoded)
	if err != nil {
		return fmt.Errorf("sealing the history of release %s: %w", rel, err)
	}
	secret.Data[keySealed] = sealed
	secret.Annotations[annReleaseKey] = id
	return nil
}

// openRelease puts back the entries sealRelease sealed into secret, read
// from the cluster. A record written before sealing has none: the next
// apply, rollback or test seals it.
func openRelease(ctx context.Context, c client.Reader, secret *corev1.Secret) error {
	sealed, ok := secret.Data[keySealed]
	if !ok {
		return nil
	}
	name := secret.Labels[labelRelease]
	if name == "" {
		name = secret.Name[len(secretPrefix):]
	}
	key := releaseKey(secret.Namespace, name)
	cannot := func(err error) error {
		return fmt.Errorf("the history and delete hooks of release %s/%s are sealed with a key of Secret %s, and %w; "+
			"restore that Secret, or delete the release's record, Secret %s, and apply it again", secret.Namespace, name, key, err, secret.Name)
	}
	keys := &corev1.Secret{}
	if err := c.Get(ctx, key, keys); err != nil {
		if apierrors.IsNotFound(err) {
			return cannot(fmt.Errorf("that Secret is gone"))
		}
		return fmt.Errorf("reading the key of release %s/%s, Secret %s: %w", secret.Namespace, name, key, err)
	}
	ring, err := sealing.FromSecret(keys)
	if err != nil {
		return cannot(err)
	}
	encoded, err := ring.Open(secret.Annotations[annReleaseKey], releaseAAD(secret), sealed)
	if err != nil {
		return cannot(err)
	}
	if encoded, err = manifests.Decompress(encoded); err != nil {
		return cannot(err)
	}
	entries := map[string][]byte{}
	if err := json.Unmarshal(encoded, &entries); err != nil {
		return cannot(err)
	}
	for name, content := range entries {
		secret.Data[name] = content
	}
	delete(secret.Data, keySealed)
	return nil
}

// releaseAAD binds the sealed entries to the release's Secret.
func releaseAAD(secret *corev1.Secret) []byte {
	return sealing.AAD("wavekit.dev/release", secret.Namespace, secret.Name)
}

// removeReleaseKey deletes the key of release rel, with its record.
func removeReleaseKey(ctx context.Context, c client.Client, rel *release) error {
	key := releaseKey(rel.Namespace, rel.Name)
	err := c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the key of release %s, Secret %s: %w", rel, key, err)
	}
	return nil
}
