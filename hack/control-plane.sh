#!/usr/bin/env bash
# control-plane.sh builds a local control plane from the Go module proxy into a
# cache directory keyed by version and prints that directory (use it as
# KUBEBUILDER_ASSETS): kube-apiserver, kube-controller-manager, kube-scheduler,
# etcd and kwok. A second run finds every binary and returns at once; a cache
# that lacks some of them builds only those. With --dir it prints the
# directory and builds nothing.
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

# --dir prints the directory the binaries go into, and builds nothing.
if [[ "${1:-}" == "--dir" ]]; then
  echo "${DEST}"
  exit 0
fi

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
# One build at a time: a second make test or demo started meanwhile waits
# for the first to finish the cache, then finds what it built.
if command -v flock >/dev/null; then
  exec 9>"${DEST}.lock"
  if ! flock -n 9; then
    log "another build of ${DEST} is under way; waiting for it"
    flock 9
  fi
  if [[ -z "$(missing "${KUBE_BINARIES[@]}" etcd kwok)" ]]; then
    echo "${DEST}"
    exit 0
  fi
fi
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

staging_version="v0.${KUBE_VERSION#1.}"
kube_minor="$(echo "${KUBE_VERSION}" | cut -d. -f2)"

# in_module makes the throwaway module NAME under WORK with go line GO that
# requires MODULE@VERSION, and enters it (call it in a subshell).
in_module() {
  local name="$1" go_line="$2" require="$3"
  mkdir -p "${WORK}/${name}"
  cd "${WORK}/${name}"
  go mod init "wavekit.local/build/${name}" >/dev/null 2>&1
  go mod edit -go="${go_line}" -require="${require}"
}

# tools_file writes tools.go, which imports the packages to build so that
# go mod tidy keeps what they need.
tools_file() {
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    printf '\t_ "%s"\n' "$@"
    printf ')\n'
  } > tools.go
  go mod tidy >/dev/null 2>&1 || go mod tidy
}

# install_binary builds PACKAGE of the current module with LDFLAGS into the cache as
# BINARY, replacing it only once the build succeeded.
install_binary() {
  local package="$1" binary="$2" ldflags="$3" start=${SECONDS}
  go build -trimpath -ldflags "${ldflags}" -o "${DEST}/${binary}.tmp.$$" "${package}"
  mv "${DEST}/${binary}.tmp.$$" "${DEST}/${binary}"
  log "built ${binary} in $((SECONDS - start)) s"
}

# build_kube builds the Kubernetes components named as arguments.
build_kube() {
  log "building $* v${KUBE_VERSION} from the Go module proxy (each takes several CPU-minutes cold; it is not hanging)"
  (
    in_module kube 1.26 "k8s.io/kubernetes@v${KUBE_VERSION}"
    local kube_mod
    kube_mod="$(go mod download -json "k8s.io/kubernetes@v${KUBE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
    # Every staging module is required at v0.0.0 and replaced by a path inside
    # the kubernetes repository; point each at its published release instead.
    local staging m b
    staging="$(awk '$2 == "v0.0.0" && $1 ~ /^k8s\.io\// {print $1}' "${kube_mod}" | sort -u)"
    for m in ${staging}; do
      go mod edit -replace="${m}=${m}@${staging_version}"
    done
    tools_file "${KUBE_BINARIES[@]/#/k8s.io/kubernetes/cmd/}"
    local ldflags="-s -w"
    ldflags+=" -X k8s.io/component-base/version.gitVersion=v${KUBE_VERSION}"
    ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
    ldflags+=" -X k8s.io/component-base/version.gitMinor=${kube_minor}"
    ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
    for b in "$@"; do
      install_binary "k8s.io/kubernetes/cmd/${b}" "${b}" "${ldflags}"
    done
  )
}

build_etcd() {
  log "building etcd v${ETCD_VERSION} from the Go module proxy"
  (
    in_module etcd 1.26 "go.etcd.io/etcd/server/v3@v${ETCD_VERSION}"
    # etcdmain is a library: a main package of our own calls it.
    printf 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n' > main.go
    go mod tidy >/dev/null 2>&1 || go mod tidy
    install_binary . etcd "-s -w"
  )
}

build_kwok() {
  log "building kwok v${KWOK_VERSION} from the Go module proxy"
  (
    # kwok's go.mod needs go 1.26.0 and pins its k8s.io modules itself.
    in_module kwok 1.26.0 "sigs.k8s.io/kwok@v${KWOK_VERSION}"
    tools_file sigs.k8s.io/kwok/cmd/kwok
    install_binary sigs.k8s.io/kwok/cmd/kwok kwok "-s -w"
  )
}

started=${SECONDS}
[[ -z "$(missing etcd)" ]] || build_etcd
mapfile -t kube_missing < <(missing "${KUBE_BINARIES[@]}")
[[ ${#kube_missing[@]} -eq 0 ]] || build_kube "${kube_missing[@]}"
[[ -z "$(missing kwok)" ]] || build_kwok
log "${KUBE_BINARIES[*]}, etcd and kwok are in ${DEST} (built in $((SECONDS - started)) s)"
echo "${DEST}"
