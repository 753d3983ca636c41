#!/usr/bin/env bash
# control-plane.sh builds a local control plane from the Go module proxy into a
# cache directory keyed by version and prints that directory (use it as
# KUBEBUILDER_ASSETS): kube-apiserver, kube-controller-manager, kube-scheduler,
# etcd and kwok. A second run finds every binary and returns at once; a cache
# that lacks some of them builds only those.
#
# The three Kubernetes components come from k8s.io/kubernetes through one
# throwaway module that replaces every staging module that k8s.io/kubernetes
# lists at v0.0.0 with the matching v0.x release; etcd comes from
# go.etcd.io/etcd/server/v3/etcdmain; kwok (simulated nodes and pods) from
# sigs.k8s.io/kwok/cmd/kwok in a module of its own.
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-1.37.1}"
ETCD_VERSION="${ETCD_VERSION:-3.6.16}"
KWOK_VERSION="${KWOK_VERSION:-0.8.0}"
CACHE_ROOT="${WAVEKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wavekit}"
DEST="${CACHE_ROOT}/k8s/${KUBE_VERSION}-etcd${ETCD_VERSION}"

export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0

log() { echo "control-plane: $*" >&2; }

KUBE_BINARIES=(kube-apiserver kube-controller-manager kube-scheduler)

# missing prints the binaries of the arguments that the cache lacks.
missing() {
  local b
  for b in "$@"; do
    [[ -x "${DEST}/${b}" ]] || echo "${b}"
  done
}

if [[ -z "$(missing "${KUBE_BINARIES[@]}" etcd kwok)" ]]; then
  echo "${DEST}"
  exit 0
fi

mkdir -p "${DEST}"
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

staging_version="v0.${KUBE_VERSION#1.}"
kube_minor="$(echo "${KUBE_VERSION}" | cut -d. -f2)"

# build_kube builds the Kubernetes components named as arguments.
build_kube() {
  log "building $* v${KUBE_VERSION} from the Go module proxy (each takes several CPU-minutes cold; it is not hanging)"
  local mod="${WORK}/kube"
  mkdir -p "${mod}"
  (
    cd "${mod}"
    go mod init wavekit.local/build/kube-apiserver >/dev/null 2>&1
    go mod edit -go=1.26 -require="k8s.io/kubernetes@v${KUBE_VERSION}"
    local kube_mod
    kube_mod="$(go mod download -json "k8s.io/kubernetes@v${KUBE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
    # Every staging module is required at v0.0.0 and replaced by a path inside
    # the kubernetes repository; point each at its published release instead.
    local staging
    staging="$(awk '$2 == "v0.0.0" && $1 ~ /^k8s\.io\// {print $1}' "${kube_mod}" | sort -u)"
    for m in ${staging}; do
      go mod edit -replace="${m}=${m}@${staging_version}"
    done
    {
      printf '//go:build tools\n\npackage tools\n\nimport (\n'
      local b
      for b in "${KUBE_BINARIES[@]}"; do
        printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "${b}"
      done
      printf ')\n'
    } > tools.go
    go mod tidy >/dev/null 2>&1 || go mod tidy
    local ldflags="-s -w"
    ldflags+=" -X k8s.io/component-base/version.gitVersion=v${KUBE_VERSION}"
    ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
    ldflags+=" -X k8s.io/component-base/version.gitMinor=${kube_minor}"
    ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
    local b start
    for b in "$@"; do
      start=${SECONDS}
      go build -trimpath -ldflags "${ldflags}" -o "${DEST}/${b}.tmp" "k8s.io/kubernetes/cmd/${b}"
      mv "${DEST}/${b}.tmp" "${DEST}/${b}"
      log "built ${b} in $((SECONDS - start)) s"
    done
  )
}

build_etcd() {
  log "building etcd v${ETCD_VERSION} from the Go module proxy"
  local mod="${WORK}/etcd"
  mkdir -p "${mod}"
  (
    cd "${mod}"
    go mod init wavekit.local/build/etcd >/dev/null 2>&1
    go mod edit -go=1.26 -require="go.etcd.io/etcd/server/v3@v${ETCD_VERSION}"
    cat > main.go <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
    go mod tidy >/dev/null 2>&1 || go mod tidy
    go build -trimpath -ldflags "-s -w" -o "${DEST}/etcd.tmp" .
  )
  mv "${DEST}/etcd.tmp" "${DEST}/etcd"
}

build_kwok() {
  log "building kwok v${KWOK_VERSION} from the Go module proxy"
  local mod="${WORK}/kwok"
  mkdir -p "${mod}"
  (
    cd "${mod}"
    go mod init wavekit.local/build/kwok >/dev/null 2>&1
    # kwok's go.mod needs go 1.26.0 and pins its k8s.io modules itself.
    go mod edit -go=1.26.0 -require="sigs.k8s.io/kwok@v${KWOK_VERSION}"
    cat > tools.go <<'GO'
//go:build tools

package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
GO
    go mod tidy >/dev/null 2>&1 || go mod tidy
    go build -trimpath -ldflags "-s -w" -o "${DEST}/kwok.tmp" sigs.k8s.io/kwok/cmd/kwok
  )
  mv "${DEST}/kwok.tmp" "${DEST}/kwok"
}

started=${SECONDS}
[[ -z "$(missing etcd)" ]] || build_etcd
mapfile -t kube_missing < <(missing "${KUBE_BINARIES[@]}")
[[ ${#kube_missing[@]} -eq 0 ]] || build_kube "${kube_missing[@]}"
[[ -z "$(missing kwok)" ]] || build_kwok
log "${KUBE_BINARIES[*]}, etcd and kwok are in ${DEST} (built in $((SECONDS - started)) s)"
echo "${DEST}"
