package keptrender

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/sealing"
)

// How a kept render's Secret holds its objects: gzipped JSON, sealed with
// the key its annotation names; operators before sealing kept the gzipped
// JSON as it is.
const (
	dataSealed    = "objects.sealed"
	dataPlaintext = "objects.json.gz"
	annotationKey = "wavekit.dev/render-key"
)

// sealInto puts render into secret, gzipped and sealed with the active key,
// bound to the Secret's place, owner and annotations (aadOf): these must
// be final.
func (k *Keys) sealInto(ctx context.Context, secret *corev1.Secret, render Render) error {
	compressed, err := manifests.Compress(render.data)
	if err != nil {
		return fmt.Errorf("keeping the render: %w", err)
	}
	if len(compressed) > Limit {
		return fmt.Errorf("the render takes %d KiB gzipped, more than the %d KiB a kept render may take", len(compressed)>>10, Limit>>10)
	}
	if secret.Annotations == nil {
		secret.Annotations = map[string]string{}
	}
	delete(secret.Annotations, annotationKey)
	id, sealed, err := k.Seal(ctx, aadOf(secret), compressed)
	if err != nil {
		return fmt.Errorf("keeping the render: %w", err)
	}
	secret.Data = map[string][]byte{dataSealed: sealed}
	secret.Annotations[annotationKey] = id
	return nil
}

// aadOf is what sealed data is bound to: the Secret that keeps it (its
// namespace, name and controller) and what its annotations say it holds.
func aadOf(secret *corev1.Secret) []byte {
	owner := ""
	if ref := metav1.GetControllerOfNoCopy(secret); ref != nil {
		owner = string(ref.UID)
	}
	a := secret.Annotations
	return sealing.AAD("wavekit.dev/kept-render", secret.Namespace, secret.Name, owner,
		a[annotationDigest], a[annotationGeneration], a[annotationInputs], a[annotationSource])
}

// opened is a render read from its Secret, the key it was sealed with, and
// whether it was kept in plaintext (by an operator before sealing).
type opened struct {
	render    Render
	key       string
	plaintext bool
}

// UnreadableError says that a kept render is there but cannot be applied:
// it does not open, or holds other objects than its digest says. The
// component renders again, and says why.
type UnreadableError struct {
	Secret string // namespace/name
	Err    error
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("the kept render in Secret %s cannot be read: %v", e.Secret, e.Err)
}

func (e *UnreadableError) Unwrap() error { return e.Err }

// renderIn returns the render secret keeps, which must have digest.
func (k *Keys) renderIn(ctx context.Context, secret *corev1.Secret, digest string) (opened, error) {
	unreadable := func(err error) error {
		return &UnreadableError{Secret: client.ObjectKeyFromObject(secret).String(), Err: err}
	}
	out := opened{key: secret.Annotations[annotationKey]}
	compressed, sealed := secret.Data[dataSealed]
	if sealed {
		var err error
		if compressed, err = k.Open(ctx, out.key, aadOf(secret), compressed); err != nil {
			var unknown *sealing.UnknownKeyError
			if errors.As(err, &unknown) || errors.Is(err, sealing.ErrNotAuthentic) || apierrors.IsForbidden(err) || apierrors.IsNotFound(err) {
				return opened{}, unreadable(k.why(err))
			}
			return opened{}, err
		}
	} else {
		compressed, out.plaintext = secret.Data[dataPlaintext], true
	}
	data, err := manifests.Decompress(compressed)
	if err != nil {
		return opened{}, unreadable(err)
	}
	got, err := digestOf(data)
	if err != nil {
		return opened{}, unreadable(err)
	}
	if got != digest {
		return opened{}, unreadable(fmt.Errorf("it holds render %s, not %s: it was changed", got, digest))
	}
	out.render = Render{Digest: digest, data: data}
	return out, nil
}

// why says what an error of Open means for the kept render.
func (k *Keys) why(err error) error {
	var unknown *sealing.UnknownKeyError
	if errors.As(err, &unknown) {
		return fmt.Errorf("%w of Secret %s (the Secret was deleted, or two rotations dropped the key)", err, k.secret)
	}
	return err
}
