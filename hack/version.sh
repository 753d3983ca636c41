#!/usr/bin/env bash
# Prints the version of this checkout, for the Makefile's VERSION: the git tag
# (v*) when HEAD is exactly a tag and the tracked files are unchanged, else a
# Go pseudo-version of HEAD (v0.2.1-0.20261123172628-e6bea71abcde after tag
# v0.2.0, v0.0.0-20261123172628-e6bea71abcde before any tag), and v0.0.0
# outside a git checkout. Every answer is valid semver and a valid image tag
# (no "+"), and only a clean tag counts as a release (internal/version).
set -euo pipefail

if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  echo v0.0.0
  exit 0
fi

if tag="$(git describe --tags --exact-match --match 'v*' 2>/dev/null)" &&
   git diff --quiet HEAD -- 2>/dev/null; then
  echo "$tag"
  exit 0
fi

stamp="$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S HEAD)"
rev="$(git rev-parse --short=12 HEAD)"
base="$(git describe --tags --abbrev=0 --match 'v*' 2>/dev/null || true)"
base="${base%%+*}" # build metadata plays no part in ordering

semver='^v([0-9]+)\.([0-9]+)\.([0-9]+)(-[0-9A-Za-z.-]+)?$'
if [[ "$base" =~ $semver ]]; then
  if [[ -n "${BASH_REMATCH[4]}" ]]; then
    # After a pre-release: sorts after it and before the release.
    echo "${base}.0.${stamp}-${rev}"
  else
    echo "v${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.$((BASH_REMATCH[3] + 1))-0.${stamp}-${rev}"
  fi
else
  echo "v0.0.0-${stamp}-${rev}"
fi
