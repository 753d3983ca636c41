package releases

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The inventory Secret of a release: wavekit.<NAME> in the release namespace.
const (
	secretPrefix   = "wavekit."
	secretType     = corev1.SecretType("wavekit.dev/inventory")
	labelRelease   = "wavekit.dev/release"
	annSource      = "wavekit.dev/source"
	annRevision    = "wavekit.dev/revision"
	annOperator    = "wavekit.dev/operator-name"
	annState       = "wavekit.dev/state"
	annInstalled   = "wavekit.dev/installed"
	annMessage     = "wavekit.dev/message"
	annUpdated     = "wavekit.dev/updated"
	keyInventory   = "inventory"       // JSON of []manifests.InventoryItem
	keyInventoryGz = "inventory.gz"    // the same, gzipped, when large
	keyHooks       = "delete-hooks"    // JSON of the delete hooks the last apply rendered
	keyHooksGz     = "delete-hooks.gz" // the same, gzipped, when large
	gzipThreshold  = 64 << 10
)

// Release states.
const (
	StateReady       = "Ready"
	StateProgressing = "Progressing"
	StateDeleting    = "Deleting"
	// StateFailed: the last apply stopped at an error (the message).
	StateFailed = "Failed"
)

// release is one installation of a source, as its Secret records it.
type release struct {
	Name         string `json:"name"`
	Namespace    string `json:"namespace"`
	Source       string `json:"source,omitempty"`
	OperatorName string `json:"operatorName,omitempty"`
	Revision     int64  `json:"revision"`
	State        string `json:"state"`
	// Installed is true once the release has been Ready: later renders are
	// upgrades (Helm's .Release.IsUpgrade), earlier ones the install.
	Installed bool                      `json:"installed,omitempty"`
	Message   string                    `json:"message,omitempty"`
	Updated   time.Time                 `json:"updated"`
	Inventory []manifests.InventoryItem `json:"inventory,omitempty"`
	// DeleteHooks are the delete hooks the last apply rendered: delete runs
	// them, as helm uninstall runs the hooks its release recorded.
	DeleteHooks []map[string]any `json:"-"`
	// Drift are the drift mode and ignore rules every apply uses until
	// apply's drift flags change them.
	Drift manifests.DriftSettings `json:"drift,omitzero"`
	// Drifted is what the last apply found drifted and left (drift mode Warn).
	Drifted []driftedObject `json:"drifted,omitempty"`
	// History are the last revisions, oldest first (history.go).
	History []revisionRecord `json:"-"`
	// HealthChecks judge kinds kstatus cannot read; every apply uses them
	// until --health-checks changes them.
	HealthChecks []manifests.HealthCheck `json:"healthChecks,omitempty"`

	secret *corev1.Secret // as last read or written; nil before the first write
}

func (r *release) String() string { return r.Namespace + "/" + r.Name }

// owner is the applier's owner of the release's objects.
func (r *release) owner() engine.Owner {
	return engine.Owner{
		ID:           manifests.OwnerID("wavekit.dev", "Release", r.Namespace, r.Name),
		Description:  "Release " + r.String(),
		Namespace:    r.Namespace,
		Generation:   r.Revision,
		Drift:        r.Drift, // diff compares as apply does
		HealthChecks: r.HealthChecks,
	}
}

// releaseStore reads and writes release Secrets.
type releaseStore struct {
	client client.Client
}

// get returns the release, or nil when it has no Secret.
func (s releaseStore) get(ctx context.Context, namespace, name string) (*release, error) {
	secret := &corev1.Secret{}
	err := s.client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: secretPrefix + name}, secret)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading release %s/%s: %w", namespace, name, err)
	}
	if secret.Type != secretType {
		return nil, fmt.Errorf("secret %s/%s is not a wavekit release (type %s)", namespace, secret.Name, secret.Type)
	}
	if err := openRelease(ctx, s.client, secret); err != nil {
		return nil, err
	}
	return decodeRelease(secret)
}

// list returns the releases of a namespace, or of all namespaces for "".
func (s releaseStore) list(ctx context.Context, namespace string) ([]*release, error) {
	secrets := &corev1.SecretList{}
	err := s.client.List(ctx, secrets, client.InNamespace(namespace),
		client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("type", string(secretType))})
	if err != nil {
		return nil, fmt.Errorf("listing releases: %w", err)
	}
	releases := make([]*release, 0, len(secrets.Items))
	for i := range secrets.Items {
		rel, err := decodeRelease(&secrets.Items[i])
		if err != nil {
			return nil, err
		}
		releases = append(releases, rel)
	}
	return releases, nil
}

// save writes the release's Secret: creates it the first time, then
// updates it (failing on a concurrent change).
func (s releaseStore) save(ctx context.Context, rel *release) error {
	secret, err := encodeRelease(rel)
	if err != nil {
		return err
	}
	err = sealRelease(ctx, s.client, rel, secret)
	switch {
	case err != nil:
	case rel.secret == nil:
		err = s.client.Create(ctx, secret)
	default:
		secret.ResourceVersion = rel.secret.ResourceVersion
		err = s.client.Update(ctx, secret)
	}
	if notFound := namespaceNotFound(err); rel.secret == nil && notFound != nil {
		return fmt.Errorf("release namespace %s does not exist: create it first (kubectl create namespace %s); "+
			"the release's record, secret %s, lives there: %w", rel.Namespace, rel.Namespace, secret.Name, notFound)
	}
	if err != nil {
		return fmt.Errorf("saving the inventory of release %s in secret %s: %w", rel, secret.Name, err)
	}
	rel.secret = secret
	return nil
}

// namespaceNotFound returns the API server's answer to a create in a
// namespace that does not exist, if err holds one: the record's own create
// or the first apply's create of the release's key (releasesealing.go).
func namespaceNotFound(err error) error {
	var status *apierrors.StatusError
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return nil
	}
	details := status.Status().Details
	if details == nil || details.Kind != "namespaces" {
		return nil
	}
	return status
}

// remove deletes the release's Secret.
func (s releaseStore) remove(ctx context.Context, rel *release) error {
	if rel.secret == nil {
		return nil
	}
	err := s.client.Delete(ctx, rel.secret)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting secret %s/%s of release %s: %w", rel.Namespace, rel.secret.Name, rel, err)
	}
	return removeReleaseKey(ctx, s.client, rel)
}

func encodeRelease(rel *release) (*corev1.Secret, error) {
	secret := &corev1.Secret{Type: secretType, Data: map[string][]byte{}}
	if err := encodeData(secret.Data, keyInventory, keyInventoryGz, rel.Inventory); err != nil {
		return nil, fmt.Errorf("encoding the inventory of release %s: %w", rel, err)
	}
	if len(rel.DeleteHooks) > 0 {
		if err := encodeData(secret.Data, keyHooks, keyHooksGz, rel.DeleteHooks); err != nil {
			return nil, fmt.Errorf("encoding the delete hooks of release %s: %w", rel, err)
		}
	}
	if err := encodeDrift(secret.Data, rel); err != nil {
		return nil, err
	}
	if err := encodeHealthChecks(secret.Data, rel); err != nil {
		return nil, err
	}
	if len(rel.History) > 0 {
		if err := encodeData(secret.Data, keyHistory, keyHistoryGz, rel.History); err != nil {
			return nil, fmt.Errorf("encoding the history of release %s: %w", rel, err)
		}
	}
	secret.Name, secret.Namespace = secretPrefix+rel.Name, rel.Namespace
	secret.Labels = map[string]string{labelRelease: rel.Name}
	secret.Annotations = map[string]string{
		annSource: rel.Source, annOperator: rel.OperatorName,
		annRevision: strconv.FormatInt(rel.Revision, 10), annState: rel.State,
		annUpdated: rel.Updated.UTC().Format(time.RFC3339),
	}
	if rel.Message != "" {
		secret.Annotations[annMessage] = rel.Message
	}
	if rel.Installed {
		secret.Annotations[annInstalled] = "true"
	}
	return secret, nil
}

func decodeRelease(secret *corev1.Secret) (*release, error) {
	ann := secret.Annotations
	rel := &release{
		Name: secret.Labels[labelRelease], Namespace: secret.Namespace,
		Source: ann[annSource], OperatorName: ann[annOperator], State: ann[annState], Message: ann[annMessage],
		secret: secret,
	}
	if rel.Name == "" {
		rel.Name = secret.Name[len(secretPrefix):]
	}
	// A release recorded before the annotation existed is installed if Ready.
	rel.Installed = ann[annInstalled] == "true" || rel.State == StateReady
	rel.Revision, _ = strconv.ParseInt(ann[annRevision], 10, 64)
	rel.Updated, _ = time.Parse(time.RFC3339, ann[annUpdated])
	if err := decodeData(secret.Data, keyInventory, keyInventoryGz, &rel.Inventory); err != nil {
		return nil, fmt.Errorf("secret %s/%s: reading the inventory: %w", secret.Namespace, secret.Name, err)
	}
	if err := decodeData(secret.Data, keyHooks, keyHooksGz, &rel.DeleteHooks); err != nil {
		return nil, fmt.Errorf("secret %s/%s: reading the delete hooks: %w", secret.Namespace, secret.Name, err)
	}
	if err := decodeDrift(secret.Data, rel); err != nil {
		return nil, fmt.Errorf("secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	if err := decodeHealthChecks(secret.Data, rel); err != nil {
		return nil, fmt.Errorf("secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	if err := decodeData(secret.Data, keyHistory, keyHistoryGz, &rel.History); err != nil {
		return nil, fmt.Errorf("secret %s/%s: reading the history: %w", secret.Namespace, secret.Name, err)
	}
	return rel, nil
}

// encodeData stores value as JSON under key, or gzipped under gzKey when large.
func encodeData(data map[string][]byte, key, gzKey string, value any) error {
	encoded, err := json.Marshal(value)
	if err != nil {
		return err
	}
	if len(encoded) > gzipThreshold {
		key = gzKey
		if encoded, err = manifests.Compress(encoded); err != nil {
			return err
		}
	}
	data[key] = encoded
	return nil
}

// decodeData reads what encodeData stored, if anything.
func decodeData(data map[string][]byte, key, gzKey string, into any) error {
	encoded, compressed := data[gzKey]
	if !compressed {
		encoded = data[key]
	}
	if len(encoded) == 0 {
		return nil
	}
	if compressed {
		var err error
		if encoded, err = manifests.Decompress(encoded); err != nil {
			return err
		}
	}
	return json.Unmarshal(encoded, into)
}
