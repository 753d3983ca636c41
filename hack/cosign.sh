#!/usr/bin/env bash
# cosign.sh builds cosign, sigstore's command-line verifier, from the Go
# module proxy into a cache directory keyed by version and prints the
# binary's path. The release tests (test/release) verify what `make dist`
# signs with it: a verifier that is not ours. A second run finds it and
# returns at once.
set -euo pipefail

COSIGN_VERSION="${COSIGN_VERSION:-v3.1.3}"
CACHE_ROOT="${WAVEKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wavekit}"
DEST="${CACHE_ROOT}/tools/cosign-${COSIGN_VERSION}"

if [[ ! -x "${DEST}/cosign" ]]; then
  echo "cosign: building ${COSIGN_VERSION} from the Go module proxy into ${DEST}" >&2
  mkdir -p "${DEST}"
  GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0 GOBIN="${DEST}" \
    go install -trimpath "github.com/sigstore/cosign/v3/cmd/cosign@${COSIGN_VERSION}" >&2
fi
echo "${DEST}/cosign"
