// Command image builds and pushes wavekit's images, the reference
// operator's and the agent's, without a container engine (see
// internal/imagebuild); the Makefile runs it:
//
//	go run ./hack/image build -version v0.2.0 -revision <commit> -created <unix seconds> \
//	    -image ghcr.io/wavekit-dev/component-operator:v0.2.0 -out dist
//	go run ./hack/image build -program agent -version v0.2.0 -revision <commit> -created <unix seconds> \
//	    -image ghcr.io/wavekit-dev/wavekit-agent:v0.2.0 -out dist
//	go run ./hack/image push -archive dist/component-operator-v0.2.0.oci.tar \
//	    -image registry.example.com/component-operator:v0.2.0
//
// It lives under hack/ because it is a build tool, not part of the operator.
package main
