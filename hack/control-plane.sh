#!/usr/bin/env bash
# control-plane.sh builds kube-apiserver and etcd from the Go module proxy into a
# cache directory keyed by version and prints that directory (use it as
# KUBEBUILDER_ASSETS). A second run finds both binaries and returns at once.
#
# kube-apiserver comes from k8s.io/kubernetes through a throwaway module that
# replaces every staging module that k8s.io/kubernetes lists at v0.0.0 with the
# matching v0.x release; etcd comes from go.etcd.io/etcd/server/v3/etcdmain.
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-1.37.1}"
ETCD_VERSION="${ETCD_VERSION:-3.6.16}"
CACHE_ROOT="${WAVEKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wavekit}"
DEST="${CACHE_ROOT}/k8s/${KUBE_VERSION}-etcd${ETCD_VERSION}"

export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0

log() { echo "control-plane: $*" >&2; }

if [[ -x "${DEST}/kube-apiserver" && -x "${DEST}/etcd" ]]; then
  echo "${DEST}"
  exit 0
fi

mkdir -p "${DEST}"
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

staging_version="v0.${KUBE_VERSION#1.}"
kube_minor="$(echo "${KUBE_VERSION}" | cut -d. -f2)"

build_kube_apiserver() {
  log "building kube-apiserver v${KUBE_VERSION} from the Go module proxy (cold build takes about 7 CPU-minutes; it is not hanging)"
  local mod="${WORK}/kube-apiserver"
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
    cat > tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
    go mod tidy >/dev/null 2>&1 || go mod tidy
    local ldflags="-s -w"
    ldflags+=" -X k8s.io/component-base/version.gitVersion=v${KUBE_VERSION}"
    ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
    ldflags+=" -X k8s.io/component-base/version.gitMinor=${kube_minor}"
    ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
    go build -trimpath -ldflags "${ldflags}" -o "${DEST}/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  )
  mv "${DEST}/kube-apiserver.tmp" "${DEST}/kube-apiserver"
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

[[ -x "${DEST}/etcd" ]] || build_etcd
[[ -x "${DEST}/kube-apiserver" ]] || build_kube_apiserver
log "kube-apiserver and etcd are in ${DEST}"
echo "${DEST}"
