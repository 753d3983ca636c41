package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wavekit-dev/wavekit/internal/krew"
)

func main() {
	dist := flag.String("dist", "dist", "directory of the binaries, and of the archives and manifest")
	version := flag.String("version", "", "the version (VERSION)")
	baseURL := flag.String("base-url", "", "where the archives are published")
	platforms := flag.String("platforms", "", "space-separated os/arch pairs (CLI_PLATFORMS)")
	created := flag.String("created", "0", "seconds since the epoch for the archives' entries (SOURCE_DATE_EPOCH)")
	flag.Parse()
	seconds, err := strconv.ParseInt(*created, 10, 64)
	if err != nil {
		fail(fmt.Errorf("-created %q: %w", *created, err))
	}
	opts := krew.Options{Dist: *dist, Version: *version, BaseURL: *baseURL, ModTime: time.Unix(seconds, 0).UTC()}
	for _, p := range strings.Fields(*platforms) {
		goos, arch, ok := strings.Cut(p, "/")
		if !ok {
			fail(fmt.Errorf("-platforms: %q is not os/arch", p))
		}
		opts.Platforms = append(opts.Platforms, krew.Platform{OS: goos, Arch: arch})
	}
	path, err := krew.Package(opts)
	if err != nil {
		fail(err)
	}
	fmt.Println(path)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "error:", err)
	os.Exit(1)
}
