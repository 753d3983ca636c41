package scaffold

import (
	"fmt"

	"github.com/wavekit-dev/wavekit/internal/version"
	"github.com/wavekit-dev/wavekit/pkg/testenv/k8sbin"
)

// Self is the wavekit that scaffolds, which decides the project's wavekit
// dependency when the options do not name one.
type Self struct {
	// Version is the running wavekit's version (version.String()).
	Version string
	// Checkout finds the wavekit source tree the running binary was built
	// from (version.Checkout); nil means it is not known.
	Checkout func() (string, error)
}

// Wavekit is the wavekit a project builds against.
type Wavekit struct {
	// Version is the version go.mod requires.
	Version string
	// Replace, when set, is the wavekit checkout go.mod replaces it with.
	Replace string
	// Note says in one line what was chosen for the user when the options
	// named no wavekit and the choice is a replace; empty otherwise.
	Note string
}

// Wavekit decides the project's wavekit dependency. An explicit
// WavekitReplace or WavekitVersion wins. Otherwise a released wavekit
// requires its own version, and a development build replaces wavekit with
// the checkout it was built from, so that the project builds as it is; when
// that checkout is not known, it fails and says which flag to pass.
func (o Options) Wavekit() (Wavekit, error) {
	switch {
	case o.WavekitReplace != "":
		v := o.WavekitVersion
		if v == "" {
			v = releaseOr(o.Self.Version, version.Development)
		}
		return Wavekit{Version: v, Replace: o.WavekitReplace}, nil
	case o.WavekitVersion != "":
		return Wavekit{Version: o.WavekitVersion}, nil
	case version.IsRelease(o.Self.Version):
		return Wavekit{Version: o.Self.Version}, nil
	}
	dir, err := o.Self.checkout()
	if err != nil {
		return Wavekit{}, fmt.Errorf("this wavekit (%s) is not a release, so the project would replace wavekit with the checkout it was built from, but %w; pass --wavekit-replace DIR (a wavekit checkout) or --wavekit-version vX.Y.Z (a released wavekit)",
			o.Self.Version, err)
	}
	return Wavekit{
		Version: version.Development,
		Replace: dir,
		Note: fmt.Sprintf("note: this wavekit (%s) is not a release, so go.mod replaces %s with its checkout %s; to use a release later run: go mod edit -dropreplace=%[2]s -require=%[2]s@vX.Y.Z && go mod tidy",
			o.Self.Version, k8sbin.ModulePath, dir),
	}, nil
}

// checkout calls Checkout, or says that there is none.
func (s Self) checkout() (string, error) {
	if s.Checkout == nil {
		return "", k8sbin.ErrNoCheckout
	}
	return s.Checkout()
}

// releaseOr returns v when it is a release, else fallback.
func releaseOr(v, fallback string) string {
	if version.IsRelease(v) {
		return v
	}
	return fallback
}
