package dependency

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/provenance"
)

// lockedVersions returns the version each dependency of ch is taken at,
// by its index in Chart.yaml: the version its Chart.lock pins when the
// lock matches Chart.yaml by Helm's digest, else the range Chart.yaml
// asks for. A lock that does not match is a LockError.
func (w *walk) lockedVersions(ctx context.Context, ch *chart.Chart, under string) ([]string, error) {
	deps := ch.Metadata.Dependencies
	versions := make([]string, len(deps))
	for i, d := range deps {
		if d != nil {
			versions[i] = d.Version
		}
	}
	if ch.Lock == nil {
		return versions, nil
	}
	mapped, err := w.mapNames(ctx, deps)
	if err != nil {
		return nil, err
	}
	if !lockMatches(ch, mapped) {
		return nil, &LockError{Dependency: under, File: lockFile(ch), Differences: lockDifferences(mapped, ch.Lock.Dependencies, lockFile(ch))}
	}
	for i, locked := range ch.Lock.Dependencies {
		if i < len(versions) && locked != nil && locked.Version != "" {
			versions[i] = locked.Version
		}
	}
	return versions, nil
}

// mapNames returns a copy of deps whose @name and alias:name repositories
// are the URLs of the repositories they name, as Helm maps them before it
// computes a lock's digest; a name no repository has stays as written.
func (w *walk) mapNames(ctx context.Context, deps []*chart.Dependency) ([]*chart.Dependency, error) {
	out := make([]*chart.Dependency, len(deps))
	for i, d := range deps {
		if d == nil {
			continue
		}
		c := *d
		if ref, ok := parseReference(d.Repository); ok && ref.kind == named {
			url, found, err := w.nameURL(ctx, ref.value)
			if err != nil {
				return nil, err
			}
			if found {
				c.Repository = url
			}
		}
		out[i] = &c
	}
	return out, nil
}

// lockMatches checks ch's lock against the dependencies of its Chart.yaml
// (names mapped) as `helm dependency build` does: the digest of both
// lists, or for an apiVersion v1 chart also Helm 2's digest of
// requirements.yaml as written.
func lockMatches(ch *chart.Chart, mapped []*chart.Dependency) bool {
	if sum, err := hashRequirements(mapped, ch.Lock.Dependencies); err == nil && sum == ch.Lock.Digest {
		return true
	}
	if ch.Metadata.APIVersion != chart.APIVersionV1 {
		return false
	}
	sum, err := digestOf(map[string][]*chart.Dependency{"dependencies": ch.Metadata.Dependencies})
	return err == nil && sum == ch.Lock.Digest
}

// hashRequirements is Helm's digest of a chart's dependencies and their
// lock, as Chart.lock records it.
func hashRequirements(req, lock []*chart.Dependency) (string, error) {
	return digestOf([2][]*chart.Dependency{req, lock})
}

func digestOf(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum, err := provenance.Digest(bytes.NewReader(data))
	return "sha256:" + sum, err
}

func lockFile(ch *chart.Chart) string {
	if ch.Metadata.APIVersion == chart.APIVersionV1 {
		return "requirements.lock"
	}
	return "Chart.lock"
}

// lockDifferences says what differs between Chart.yaml's dependencies and
// the lock's, as far as names, repositories and versions show it.
func lockDifferences(req, lock []*chart.Dependency, file string) []string {
	if len(req) != len(lock) {
		return []string{fmt.Sprintf("%s lists %d dependencies, %s %d", dependenciesFile(file), len(req), file, len(lock))}
	}
	var out []string
	for i, r := range req {
		l := lock[i]
		if r == nil || l == nil {
			continue
		}
		switch {
		case r.Name != l.Name:
			out = append(out, fmt.Sprintf("dependency %d is %s in %s, %s in %s", i+1, r.Name, dependenciesFile(file), l.Name, file))
		case r.Repository != l.Repository:
			out = append(out, fmt.Sprintf("dependency %s: repository %q in %s, %q in %s", r.Name, r.Repository, dependenciesFile(file), l.Repository, file))
		case !satisfies(r.Version, l.Version):
			out = append(out, fmt.Sprintf("dependency %s: %s asks %q, %s holds %s", r.Name, dependenciesFile(file), r.Version, file, l.Version))
		}
	}
	return out
}

// satisfies reports whether version is allowed by constraint; a version
// that is not one (a lock may hold a range) is taken to be.
func satisfies(constraint, version string) bool {
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return false
	}
	v, err := semver.NewVersion(version)
	return err != nil || c.Check(v)
}
