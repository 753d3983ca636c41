package dependency

import (
	"fmt"
	"strings"
)

// Error says which dependency a fetch failed for; Err is the fetch
// package's error (ChartNotFoundError, VersionNotFoundError, AuthError,
// SizeLimitError, VerificationError, a network error…).
type Error struct {
	// Dependency names the dependency by its chart's name, after its
	// parents' for a dependency of a dependency (child/grandchild).
	Dependency string
	// Repository is the repository it was fetched from.
	Repository string
	Err        error
}

func (e *Error) Error() string {
	return fmt.Sprintf("dependency %s from %s: %v", e.Dependency, e.Repository, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// LockError says a Chart.lock does not match its Chart.yaml: `helm
// dependency update` makes a new one.
type LockError struct {
	// Dependency names the chart whose lock it is, as Error does; "" for
	// the chart rendered. File is the lock file (Chart.lock, or
	// requirements.lock of an apiVersion v1 chart).
	Dependency, File string
	// Differences say what differs, when it shows in the names,
	// repositories and versions; empty when only the digest does.
	Differences []string
}

func (e *LockError) Error() string {
	msg := fmt.Sprintf("%s is out of sync with the dependencies of %s", e.File, dependenciesFile(e.File))
	if e.Dependency != "" {
		msg = fmt.Sprintf("the %s of dependency %s is out of sync with the dependencies of its %s", e.File, e.Dependency, dependenciesFile(e.File))
	}
	if len(e.Differences) > 0 {
		msg += " (" + strings.Join(e.Differences, "; ") + ")"
	}
	return msg + ": run helm dependency update and keep the " + e.File + " it writes"
}

func dependenciesFile(lock string) string {
	if lock == "requirements.lock" {
		return "requirements.yaml"
	}
	return "Chart.yaml"
}

// ReferenceError says a dependency's repository cannot be reached as
// written: a form that is not understood, a name no repository has, or no
// repository for a chart that charts/ does not hold.
type ReferenceError struct {
	// Dependency names it as Error does, Repository as Chart.yaml writes
	// it.
	Dependency, Repository string
	Reason                 string
}

func (e *ReferenceError) Error() string {
	if e.Repository == "" {
		return fmt.Sprintf("dependency %s: %s", e.Dependency, e.Reason)
	}
	return fmt.Sprintf("dependency %s: repository %q: %s", e.Dependency, e.Repository, e.Reason)
}

// LocalPathError says a file:// dependency is not a chart inside the
// source: its path leaves Request.Root, or holds no chart.
type LocalPathError struct {
	// Dependency names it as Error does, Repository as Chart.yaml writes
	// it.
	Dependency, Repository string
	Reason                 string
}

func (e *LocalPathError) Error() string {
	return fmt.Sprintf("dependency %s: %s %s", e.Dependency, e.Repository, e.Reason)
}
