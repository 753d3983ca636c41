#!/usr/bin/env bash
# build-helm-controller.sh builds Flux helm-controller from the Go module proxy
# into the user's cache directory, with its CRD and the source CRDs it
# watches (ExternalArtifact, HelmChart, OCIRepository) beside it, and prints that directory. A second run
# finds the binary and returns at once.
#
# helm-controller's own replace lines are not inherited by a module that
# requires it, so the throwaway module copies the ones its build needs.
# source-controller is not built (v1.10 needs Go 1.27 and module versions the
# proxy refuses); the ExternalArtifact CRD comes from its v1.9.0 module, the
# source API version helm-controller v1.6.1 is built against.
set -euo pipefail

HC_VERSION="${HC_VERSION:-v1.6.1}"
SC_VERSION="${SC_VERSION:-v1.9.0}"
CACHE_ROOT="${WAVEKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wavekit}"
DEST="${CACHE_ROOT}/flux/helm-controller-${HC_VERSION}"

export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS=-mod=mod CGO_ENABLED=0

log() { echo "helm-controller: $*" >&2; }

if [[ "${1:-}" == "--dir" ]]; then
  echo "${DEST}"
  exit 0
fi
# complete says whether the cache holds the binary and both CRDs.
complete() {
  [[ -x "${DEST}/helm-controller" && -f "${DEST}/crds/helmreleases.yaml" && -f "${DEST}/crds/externalartifacts.yaml" \
    && -f "${DEST}/crds/helmcharts.yaml" && -f "${DEST}/crds/ocirepositories.yaml" ]]
}
if complete; then
  echo "${DEST}"
  exit 0
fi

mkdir -p "${DEST}/crds"
exec 9>"${DEST}.lock"
flock 9
if complete; then
  echo "${DEST}"
  exit 0
fi
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT
started=${SECONDS}
cd "${WORK}"
cat > go.mod <<MOD
module wavekit.local/build/helm-controller

go 1.26.0

replace github.com/opencontainers/go-digest => github.com/opencontainers/go-digest v1.0.1-0.20231025023718-d50d2fec9c98

replace (
	sigs.k8s.io/kustomize/api => sigs.k8s.io/kustomize/api v0.21.1
	sigs.k8s.io/kustomize/kyaml => sigs.k8s.io/kustomize/kyaml v0.21.1
)
MOD
printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/fluxcd/helm-controller"\n' > tools.go
go get "github.com/fluxcd/helm-controller@${HC_VERSION}" "github.com/fluxcd/helm-controller/api@${HC_VERSION}" 2>/dev/null \
  || go get "github.com/fluxcd/helm-controller@${HC_VERSION}" "github.com/fluxcd/helm-controller/api@${HC_VERSION}"
if [[ ! -x "${DEST}/helm-controller" ]]; then
  log "building helm-controller ${HC_VERSION} from the Go module proxy (several CPU-minutes and 80 MB the first time; it is not hanging)"
  go build -trimpath -ldflags "-s -w" -o "${DEST}/helm-controller.tmp.$$" github.com/fluxcd/helm-controller
  mv "${DEST}/helm-controller.tmp.$$" "${DEST}/helm-controller"
fi

# module_dir prints the directory of MODULE@VERSION in the module cache.
module_dir() {
  go mod download -json "$1" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'
}
hc_dir="$(module_dir "github.com/fluxcd/helm-controller@${HC_VERSION}")"
cp "${hc_dir}/config/crd/bases/helm.toolkit.fluxcd.io_helmreleases.yaml" "${DEST}/crds/helmreleases.yaml"
sc_dir="$(module_dir "github.com/fluxcd/source-controller@${SC_VERSION}")"
# helm-controller watches HelmCharts and OCIRepositories too: it waits for
# their CRDs before it reconciles anything.
for crd in externalartifacts helmcharts ocirepositories; do
  cp "${sc_dir}/config/crd/bases/source.toolkit.fluxcd.io_${crd}.yaml" "${DEST}/crds/${crd}.yaml"
done
log "helm-controller ${HC_VERSION} and its CRDs are in ${DEST} ($((SECONDS - started)) s)"
echo "${DEST}"
