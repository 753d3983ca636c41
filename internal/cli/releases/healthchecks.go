package releases

import (
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// keyHealthChecks holds the release's CEL health checks (JSON of
// []manifests.HealthCheck), as the last apply with --health-checks gave them.
const keyHealthChecks = "health-checks"

// readHealthChecks reads a YAML (or JSON) list of health checks, each
// {apiVersion, kind, current, failed, inProgress}; fields it does not know
// are an error. An empty path keeps what the release recorded.
func readHealthChecks(path string, recorded []manifests.HealthCheck) ([]manifests.HealthCheck, error) {
	if path == "" {
		return recorded, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--health-checks: %w", err)
	}
	var checks []manifests.HealthCheck
	if err := yaml.UnmarshalStrict(data, &checks); err != nil {
		return nil, fmt.Errorf("--health-checks %s: want a list of {apiVersion, kind, current, failed, inProgress}: %w", path, err)
	}
	return checks, nil
}

func encodeHealthChecks(data map[string][]byte, rel *release) error {
	if len(rel.HealthChecks) == 0 {
		return nil
	}
	encoded, err := json.Marshal(rel.HealthChecks)
	if err != nil {
		return fmt.Errorf("encoding the health checks of release %s: %w", rel, err)
	}
	data[keyHealthChecks] = encoded
	return nil
}

func decodeHealthChecks(data map[string][]byte, rel *release) error {
	if encoded := data[keyHealthChecks]; len(encoded) > 0 {
		if err := json.Unmarshal(encoded, &rel.HealthChecks); err != nil {
			return fmt.Errorf("reading the health checks: %w", err)
		}
	}
	return nil
}
