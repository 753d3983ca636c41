package component

import (
	"errors"
	"strings"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// A component whose render names no external dependent any more, but whose
// status still records one, in an operator without providers: the error
// names the recorded one.
func TestNoProvidersNamesARecordedDependent(t *testing.T) {
	err := noProviders(nil, []manifests.ExternalItem{{Kind: "PostgresDatabase", Name: "app"}})
	var userErr *manifests.UserError
	if !errors.As(err, &userErr) || !strings.Contains(err.Error(), "PostgresDatabase app") {
		t.Fatalf("error %v", err)
	}
	err = noProviders([]external.Dependent{{Object: external.Object{Kind: "Bucket", Name: "b"}}}, nil)
	if !strings.Contains(err.Error(), "Bucket b") {
		t.Fatalf("error %v", err)
	}
}
