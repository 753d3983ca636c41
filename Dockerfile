# syntax=docker/dockerfile:1
# The wavekit reference operator (cmd/component-operator) on distroless, as a non-root user.
#   docker build -t ghcr.io/wavekit-dev/component-operator:dev .
# Sources can be baked in with a derived image:
#   FROM ghcr.io/wavekit-dev/component-operator:<version>
#   COPY my-chart/ /opt/sources/my-chart/
# and deployed with the chart value sources: [{name: my-chart, path: /opt/sources/my-chart}].

FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
WORKDIR /workspace
ENV GOTOOLCHAIN=local

# Dependencies first, so that source changes do not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download

# The rest of the module (.dockerignore keeps tests, docs and binaries out).
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags="-s -w" -o /out/component-operator ./cmd/component-operator

FROM gcr.io/distroless/static:nonroot
LABEL org.opencontainers.image.source="https://github.com/wavekit-dev/wavekit" \
      org.opencontainers.image.description="wavekit reference component operator" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /
COPY --from=builder /out/component-operator /component-operator
USER 65532:65532
ENTRYPOINT ["/component-operator"]
