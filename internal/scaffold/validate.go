package scaffold

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/module"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/wavekit-dev/wavekit/internal/version"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/testenv/k8sbin"
)

var (
	kindPattern    = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	versionPattern = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
	dnsLabel       = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
)

// Validate checks the options after defaults are applied and returns every
// problem found, one per line.
func (o Options) Validate() error {
	o = o.withDefaults()
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.Module == "" {
		add("--module is required: the Go module path of the new project, e.g. github.com/acme/redis-operator")
	} else if err := checkModulePath(o.Module); err != nil {
		add("--module: %w", err)
	}
	if o.Group == "" {
		add("--group is required: the API group, e.g. cache.acme.io")
	} else if msgs := validation.IsDNS1123Subdomain(o.Group); len(msgs) > 0 || !strings.Contains(o.Group, ".") {
		add("--group %q must be a lower-case DNS subdomain with at least one dot, e.g. cache.acme.io", o.Group)
	}
	if !versionPattern.MatchString(o.Version) {
		add("--version %q must look like v1, v1alpha1 or v2beta3", o.Version)
	}
	if o.Kind == "" {
		add("--kind is required: the custom resource kind, e.g. Redis")
	} else if !kindPattern.MatchString(o.Kind) || len(o.Kind) > 63 {
		add("--kind %q must start with an upper-case letter and hold only letters and digits (at most 63)", o.Kind)
	}
	if err := manifests.CheckOperatorName(o.OperatorName); err != nil {
		add("--operator-name: %v", err)
	}
	if !slices.Contains(Generators, o.Generator) {
		add("--generator %q must be one of %s", o.Generator, strings.Join(Generators, ", "))
	}
	if strings.ContainsAny(o.Image, " \t\n") {
		add("--image %q must not contain white space", o.Image)
	}
	if err := o.validateWavekit(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// validateWavekit checks that the project gets a wavekit it can build with.
func (o Options) validateWavekit() error {
	w, err := o.Wavekit()
	switch {
	case err != nil:
		return err
	case module.Check(k8sbin.ModulePath, w.Version) != nil:
		return fmt.Errorf("--wavekit-version %q is not a valid module version such as v0.2.0", w.Version)
	case w.Replace == "" && w.Version == version.Development:
		return fmt.Errorf("--wavekit-version %s names no wavekit that can be downloaded; pass a released version (vX.Y.Z) or --wavekit-replace DIR (a wavekit checkout)", w.Version)
	}
	return nil
}

// checkTarget fails unless dir does not exist or is an empty directory.
func checkTarget(dir string) error {
	info, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking output directory %s: %w", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("output directory %s exists and is not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading output directory %s: %w", dir, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("output directory %s is not empty (it holds %s); choose a new or empty directory", dir, entries[0].Name())
	}
	return nil
}
