# syntax=docker/dockerfile:1
# The wavekit reference operator (cmd/component-operator) on distroless, as a non-root user,
# for those who build with Docker; `make image` builds the same image without a container
# engine (internal/imagebuild), and a test keeps the user, entrypoint and build flags equal.
#   make docker-build IMG=ghcr.io/wavekit-dev/component-operator:v0.2.0
# which runs
#   docker build --build-arg VERSION=v0.2.0 --build-arg REVISION=<commit> -t <IMG> .
# Sources can be baked in with a derived image:
#   FROM ghcr.io/wavekit-dev/component-operator:<version>
#   COPY my-chart/ /opt/sources/my-chart/
# and deployed with the chart value sources: [{name: my-chart, path: /opt/sources/my-chart}].
#
# The target agent is the image of the pull-mode agent (`wavekit agent run`, installed in a
# member cluster with config/agent-chart): the wavekit CLI binary on the same base and user;
# `make agent-image` builds the same image without a container engine (imagebuild.Agent).
#   docker build --target agent --build-arg VERSION=v0.2.0 -t ghcr.io/wavekit-dev/wavekit-agent:v0.2.0 .
# A plain `docker build .` builds the operator image, the last stage, as before.

FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
# The version stamped into the binary (make VERSION: the git tag, or a pseudo-version).
ARG VERSION=v0.0.0
WORKDIR /workspace
ENV GOTOOLCHAIN=local

# Dependencies first, so that source changes do not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download

# The rest of the module (.dockerignore keeps tests, docs and binaries out).
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags="-s -w -X github.com/wavekit-dev/wavekit/internal/version.stamped=${VERSION}" \
      -o /out/component-operator ./cmd/component-operator

# The agent's binary, built only for the target agent.
FROM builder AS agent-builder
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=v0.0.0
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags="-s -w -X github.com/wavekit-dev/wavekit/internal/version.stamped=${VERSION}" \
      -o /out/wavekit ./cmd/wavekit

FROM gcr.io/distroless/static:nonroot AS agent
ARG VERSION=v0.0.0
ARG REVISION=""
LABEL org.opencontainers.image.source="https://github.com/wavekit-dev/wavekit" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.title="wavekit-agent" \
      org.opencontainers.image.description="wavekit pull-mode agent of a member cluster (wavekit agent run)" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /
COPY --from=agent-builder /out/wavekit /wavekit
USER 65532:65532
ENTRYPOINT ["/wavekit"]
CMD ["agent", "run", "--help"]

# The operator image: the last stage, what `docker build .` builds.
FROM gcr.io/distroless/static:nonroot
ARG VERSION=v0.0.0
ARG REVISION=""
LABEL org.opencontainers.image.source="https://github.com/wavekit-dev/wavekit" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.title="component-operator" \
      org.opencontainers.image.description="wavekit reference component operator" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /
COPY --from=builder /out/component-operator /component-operator
USER 65532:65532
ENTRYPOINT ["/component-operator"]
