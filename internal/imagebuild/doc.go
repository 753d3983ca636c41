// Package imagebuild builds wavekit's container images without a container
// engine: the reference operator's (Operator, ./cmd/component-operator) and
// the pull-mode agent's (Agent, the wavekit CLI of ./cmd/wavekit), from one
// code path. It compiles the image's main package as a static binary for
// each platform, puts it on an empty (scratch) base with
// go-containerregistry, writes the multi-platform index as an OCI archive
// and one Docker archive per platform, and pushes the index to a registry.
//
// The same commit gives the same image digest: the binary is built with
// -trimpath, and every time stamp in the image is the Created time given.
//
// The Dockerfile at the module root builds the same images with Docker (its
// last stage the operator's, its target agent the agent's); a test keeps
// their user, entrypoint and build flags equal to the ones here.
package imagebuild
