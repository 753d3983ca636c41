package releases

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/wavekit-dev/wavekit/internal/cli/session"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// maxReleaseName is Helm's limit on release names: charts append suffixes
// to the release name in the names of their objects.
const maxReleaseName = 53

// checkNames validates the release name and the operator name before
// anything is rendered or sent, for every command that renders a release.
// how says where the release name came from, for the message ("" when the
// user typed it).
func checkNames(s *session.Session, release, how string) error {
	if err := manifests.CheckOperatorName(s.OperatorName); err != nil {
		return fmt.Errorf("--operator-name: %w", err)
	}
	if len(validation.IsDNS1123Subdomain(release)) > 0 || len(release) > maxReleaseName {
		return fmt.Errorf("release name %q%s is invalid: it names the Secret %s<NAME> and the chart's objects, so it must be a DNS subdomain "+
			"(lower-case letters, digits, '-' and '.', starting and ending with a letter or digit) of at most %d characters", release, how, secretPrefix, maxReleaseName)
	}
	return nil
}
