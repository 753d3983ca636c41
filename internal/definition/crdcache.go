package definition

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The operator caches the CRDs it wrote without their schemas. A kind's
// schema, decoded into its typed form, is most of its CRD (about 90 KiB for
// the kind of a small chart, mostly the status every instance has), and
// the operator reads it only to tell whether the CRD still says what the
// definition makes. It reads the whole CRD from the API server for that,
// once for each generation of the CRD (the API server counts up the
// generation of a CRD when its spec changes, not when its status does),
// and remembers that this generation says what the definition makes.

// withoutSchemas is the cache's transform of the CRDs it holds: without
// their versions' schemas, and without managedFields, as every other
// object of the cache.
func withoutSchemas(obj any) (any, error) {
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return obj, nil
	}
	crd.SetManagedFields(nil)
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Schema = nil
	}
	return crd, nil
}

// checkedCRDs remembers, of each CRD, the generation whose spec was found
// to say what the definition made (by the digest of the spec it made).
type checkedCRDs struct {
	mu   sync.Mutex
	seen map[string]checkedCRD
}

type checkedCRD struct {
	uid        types.UID
	generation int64
	want       [sha256.Size]byte
}

func newCheckedCRDs() *checkedCRDs { return &checkedCRDs{seen: map[string]checkedCRD{}} }

// known tells whether live's generation was found to say what want says.
func (c *checkedCRDs) known(live, want *apiextensionsv1.CustomResourceDefinition) bool {
	digest, err := specDigest(want)
	if err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	seen, ok := c.seen[live.Name]
	return ok && seen.uid == live.UID && seen.generation == live.Generation && seen.want == digest
}

// remember records that live's generation says what want says.
func (c *checkedCRDs) remember(live, want *apiextensionsv1.CustomResourceDefinition) {
	digest, err := specDigest(want)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[live.Name] = checkedCRD{uid: live.UID, generation: live.Generation, want: digest}
}

// forget drops what is remembered of the CRD name.
func (c *checkedCRDs) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.seen, name)
}

func specDigest(crd *apiextensionsv1.CustomResourceDefinition) ([sha256.Size]byte, error) {
	data, err := json.Marshal(crd.Spec)
	if err != nil {
		return [sha256.Size]byte{}, fmt.Errorf("the spec of the CRD %s: %w", crd.Name, err)
	}
	return sha256.Sum256(data), nil
}

// sameSpec tells whether live's spec is what want's says, the API
// server's defaults aside. live is the cached CRD, without its schemas:
// unless its generation was checked before, the whole CRD is read from
// api, and returned (nil when the generation was checked).
func (c *checkedCRDs) sameSpec(ctx context.Context, api client.Reader, live, want *apiextensionsv1.CustomResourceDefinition) (bool, *apiextensionsv1.CustomResourceDefinition, error) {
	if c.known(live, want) {
		return true, nil, nil
	}
	whole := &apiextensionsv1.CustomResourceDefinition{}
	if err := api.Get(ctx, client.ObjectKeyFromObject(live), whole); err != nil {
		return false, nil, fmt.Errorf("reading the CRD %s: %w", live.Name, err)
	}
	defaulted := want.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(defaulted)
	if !equality.Semantic.DeepEqual(whole.Spec, defaulted.Spec) {
		return false, whole, nil
	}
	c.remember(whole, want)
	return true, whole, nil
}
