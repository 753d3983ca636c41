package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/wavekit-dev/wavekit/internal/release"
)

const usage = `usage:
  release chart -created EPOCH ARCHIVE...
  release sbom -created EPOCH BINARY...            (writes BINARY.cdx.json)
  release provenance -dist DIR -version V -revision COMMIT -repository URL -builder ID [-target dist]
  release keygen [-out DIR]                        (cosign.key, encrypted with $COSIGN_PASSWORD, and cosign.pub)
  release sign -key cosign.key -dist DIR -created EPOCH
  release prov -keyring SECRING -key NAME CHART.tgz... (CHART.tgz.prov; passphrase in $HELM_KEY_PASSPHRASE)
  release sign-artifact -key cosign.key REGISTRY/REPOSITORY@sha256:HEX`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "chart":
		return chart(args[1:])
	case "sbom":
		return sbom(args[1:])
	case "provenance":
		return provenance(args[1:])
	case "keygen":
		return keygen(args[1:])
	case "sign":
		return signDist(args[1:])
	case "prov":
		return prov(args[1:])
	case "sign-artifact":
		return signArtifact(args[1:])
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

// chart stamps chart archives with the commit's time.
func chart(args []string) error {
	flags := flag.NewFlagSet("chart", flag.ContinueOnError)
	created := flags.Int64("created", 0, "seconds since 1970 (SOURCE_DATE_EPOCH)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	for _, path := range flags.Args() {
		if err := release.NormalizeChart(path, time.Unix(*created, 0)); err != nil {
			return err
		}
	}
	return nil
}

// sbom writes the SBOM of each binary beside it.
func sbom(args []string) error {
	flags := flag.NewFlagSet("sbom", flag.ContinueOnError)
	created := flags.Int64("created", 0, "seconds since 1970 (SOURCE_DATE_EPOCH)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	for _, path := range flags.Args() {
		name := strings.SplitN(filepath.Base(path), "-v", 2)[0]
		bom, err := release.SBOM(path, name, time.Unix(*created, 0))
		if err != nil {
			return err
		}
		if err := release.WriteSBOM(bom, path+".cdx.json"); err != nil {
			return err
		}
	}
	return nil
}

// provenance writes provenance.intoto.json of every file of the directory.
func provenance(args []string) error {
	flags := flag.NewFlagSet("provenance", flag.ContinueOnError)
	dist := flags.String("dist", "dist", "the directory of the artifacts")
	var build release.Build
	flags.StringVar(&build.Target, "target", "dist", "the make target")
	flags.StringVar(&build.Version, "version", "", "the version of the artifacts")
	flags.StringVar(&build.Revision, "revision", "", "the commit built")
	flags.StringVar(&build.Repository, "repository", "", "the Git repository's URL")
	flags.StringVar(&build.Builder, "builder", "", "what ran the build (a CI workflow's URL)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if build.Version == "" || build.Revision == "" || build.Repository == "" || build.Builder == "" {
		return errors.New("provenance: -version, -revision, -repository and -builder are required")
	}
	build.GoVersion = runtime.Version()
	const out = "provenance.intoto.json"
	subjects, err := release.Subjects(*dist, out, "SHA256SUMS")
	if err != nil {
		return err
	}
	data, err := release.Provenance(subjects, build)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(*dist, out), data, 0o644)
}
