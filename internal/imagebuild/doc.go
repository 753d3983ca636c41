// Package imagebuild builds the reference operator's container image without
// a container engine: it compiles ./cmd/component-operator as a static binary
// for each platform, puts it on an empty (scratch) base with
// go-containerregistry, writes the multi-platform index as an OCI archive
// and one Docker archive per platform, and pushes the index to a registry.
//
// The same commit gives the same image digest: the binary is built with
// -trimpath, and every time stamp in the image is the Created time given.
//
// The Dockerfile at the module root builds the same image with Docker; a
// test keeps its user, entrypoint and build flags equal to the ones here.
package imagebuild
