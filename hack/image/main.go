package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/wavekit-dev/wavekit/internal/imagebuild"
	"github.com/wavekit-dev/wavekit/internal/release"
)

const usage = `usage:
  image build [-program operator|agent] -version V -revision R -created UNIX_SECONDS -image NAME:TAG -out DIR
  image push -archive FILE.oci.tar -image REGISTRY/REPOSITORY:TAG [-referrers FILE.referrers.json]`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "build":
		return build(ctx, args[1:])
	case "push":
		return push(ctx, args[1:])
	default:
		return fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
}

// build runs imagebuild.Make from the module in the working directory.
func build(ctx context.Context, args []string) error {
	flags := flag.NewFlagSet("build", flag.ContinueOnError)
	var opts imagebuild.Options
	var created int64
	program := flags.String("program", "operator", "the image to build: operator (./cmd/component-operator) or agent (./cmd/wavekit)")
	flags.StringVar(&opts.Version, "version", "", "version to stamp into the binary (semver, e.g. v0.2.0)")
	flags.StringVar(&opts.Revision, "revision", "", "git commit the image is built from")
	flags.Int64Var(&created, "created", 0, "creation time of the image, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	flags.StringVar(&opts.Reference, "image", "", "name:tag the archives give the image")
	flags.StringVar(&opts.OutDir, "out", "dist", "directory to write the archives to")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if opts.Reference == "" {
		return errors.New("build: -image is required")
	}
	images := map[string]imagebuild.Image{"operator": imagebuild.Operator, "agent": imagebuild.Agent}
	var known bool
	if opts.Image, known = images[*program]; !known {
		return fmt.Errorf("build: -program %q is neither operator nor agent", *program)
	}
	opts.Created = time.Unix(created, 0).UTC()
	var err error
	if opts.ModuleDir, err = os.Getwd(); err != nil {
		return err
	}
	result, err := imagebuild.Make(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Printf("image %s (index %s)\n  %s: OCI archive, for kind load image-archive, podman load and Docker with the containerd image store\n", opts.Reference, result.Digest, result.OCIArchive)
	platforms := make([]string, 0, len(result.DockerArchives))
	for platform := range result.DockerArchives {
		platforms = append(platforms, platform)
	}
	sort.Strings(platforms)
	for _, platform := range platforms {
		fmt.Printf("  %s: Docker archive for docker load on %s\n", result.DockerArchives[platform], platform)
	}
	return nil
}

// push pushes the index of an OCI archive that build wrote.
func push(ctx context.Context, args []string) error {
	flags := flag.NewFlagSet("push", flag.ContinueOnError)
	archive := flags.String("archive", "", "OCI archive written by image build")
	ref := flags.String("image", "", "registry/repository:tag to push to")
	referrers := flags.String("referrers", "", "the signature and attestations to attach (release sign wrote them beside the archive)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *archive == "" || *ref == "" {
		return errors.New("push: -archive and -image are required")
	}
	index, closeArchive, err := imagebuild.ReadOCIArchive(*archive)
	if err != nil {
		return err
	}
	defer closeArchive()
	digest, err := imagebuild.Push(ctx, index, *ref)
	if err != nil {
		return err
	}
	fmt.Printf("pushed %s (index %s)\n", *ref, digest)
	if *referrers == "" {
		return nil
	}
	return attach(ctx, *ref, digest.String(), *referrers)
}

// attach attaches the signature and attestations of file to the image
// just pushed as ref, whose index is digest.
func attach(ctx context.Context, ref, digest, file string) error {
	refs, err := release.ReadReferrers(file)
	if err != nil {
		return err
	}
	if refs.Subject.Digest != digest {
		return fmt.Errorf("%s signs %s, not the image pushed (%s): sign the archive again", file, refs.Subject.Digest, digest)
	}
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	digests, err := imagebuild.AttachReferrers(ctx, tag.Context().Name(), refs)
	for i, d := range digests {
		fmt.Printf("  attached %s (%s)\n", d, refs.Bundles[i].PredicateType)
	}
	if err == nil && refs.Tag != nil {
		fmt.Printf("  pushed the signature in tag form, %s.sig\n", strings.Replace(digest, ":", "-", 1))
	}
	return err
}
