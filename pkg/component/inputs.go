package component

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/conditions"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// inputsVersion changes when the inputs' digest is made differently, so
// that every component renders once again rather than compare digests of
// two kinds.
const inputsVersion = "wavekit inputs v1"

// renderInputs returns the digest of what the component's render depends
// on: its UID, generation, spec, placement, whether the render is an install
// or an upgrade, the reconcile request it answers, and what the generator
// declares (manifests.InputsDeclarer) or, for a generator that declares
// nothing, the operator's program. ctx is the render's context.
func (p *pass) renderInputs(ctx context.Context) (string, error) {
	generated := "program " + programDigest()
	if declarer, ok := p.r.generator.(manifests.InputsDeclarer); ok {
		declared, err := declarer.RenderInputs(ctx, p.settings.Namespace, p.settings.Name, p.component.GetSpec())
		if err != nil {
			return "", err
		}
		generated = "declared " + declared
	}
	spec, err := json.Marshal(p.component.GetSpec().ToUnstructured())
	if err != nil {
		return "", fmt.Errorf("encoding the spec of %s: %w", p.id, err)
	}
	generation := p.component.GetGeneration()
	sum := sha256.New()
	for _, part := range []string{
		inputsVersion, string(p.component.GetUID()), strconv.FormatInt(generation, 10),
		p.settings.Namespace, p.settings.Name, strconv.FormatBool(conditions.IsInstall(p.component.GetStatus(), generation)),
		p.requested(AnnotationReconcileRequestedAt), generated,
	} {
		sum.Write([]byte(part))
		sum.Write([]byte{0})
	}
	sum.Write(spec)
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), nil
}
