package keptrender

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// inputsVersion changes when the inputs' digest is made differently, so
// that every component renders once again rather than compare digests of
// two kinds.
const inputsVersion = "wavekit inputs v1"

// Inputs are what a component's render depends on: a render stays current
// while their digest (Digest) stays the same.
type Inputs struct {
	UID        types.UID
	Generation int64
	// Namespace and Name are where the objects go (the placement).
	Namespace, Name string
	// Install tells an install from an upgrade (Helm's .Release.IsInstall).
	Install bool
	// Forced is the value of the force annotation: a new one renders anew
	// (as Flux's reconcile.fluxcd.io/forceAt forces a Helm upgrade). A
	// reconcile request (reconcile-requested-at) is no input: it asks for
	// a pass, which looks at the source at once and renders only what
	// changed.
	Forced string
	Spec   manifests.Parameters
	// Declared is what the generator declares (manifests.InputsDeclarer);
	// without it the operator's program stands in (programDigest).
	Declared *string
}

// Digest returns the digest of the inputs.
func (in Inputs) Digest() (string, error) {
	generated := "program " + programDigest()
	if in.Declared != nil {
		generated = "declared " + *in.Declared
	}
	spec, err := json.Marshal(in.Spec.ToUnstructured())
	if err != nil {
		return "", fmt.Errorf("encoding the spec: %w", err)
	}
	sum := sha256.New()
	for _, part := range []string{
		inputsVersion, string(in.UID), strconv.FormatInt(in.Generation, 10),
		in.Namespace, in.Name, strconv.FormatBool(in.Install), in.Forced, generated,
	} {
		sum.Write([]byte(part))
		sum.Write([]byte{0})
	}
	sum.Write(spec)
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), nil
}

// programDigest identifies the operator's own program, for the inputs of a
// generator that does not declare its own (manifests.InputsDeclarer): the
// digest of its executable, read once, so that a new build renders every
// component again once and a restart of the same build renders nothing.
// Where the executable cannot be read, the module versions it was built
// from stand for it.
var programDigest = sync.OnceValue(func() string {
	if digest, err := executableDigest(); err == nil {
		return digest
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown program"
	}
	return "build " + info.String()
})

func executableDigest() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the executable: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading the executable: %w", err)
	}
	defer f.Close()
	sum := sha256.New()
	if _, err := io.Copy(sum, f); err != nil {
		return "", fmt.Errorf("reading the executable %s: %w", path, err)
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), nil
}
