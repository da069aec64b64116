#!/usr/bin/env bash
# The release: for each CPU, the static npu-advisor (scripts/static-build.sh: no shared library, no
# glibc needed on the target; docs/release.md) as a tarball and as a Python wheel (docs/python.md).
#   scripts/release.sh [--arch x86_64|aarch64|all] [-o DIST]     # default: this machine's CPU, ./dist
# Writes into DIST:
#   npu-advisor-VERSION-linux-ARCH.tar.gz    npu-advisor-VERSION-linux-ARCH/ holding bin/npu-advisor,
#       share/man/man1/npu-advisor.1.gz, share/bash-completion/completions/npu-advisor,
#       share/doc/npu-advisor/ (README.md, docs/); `tar -xzf ... --strip-components=1 -C /usr/local`
#   npu_advisor-VERSION-py3-none-manylinux_2_17_ARCH.manylinux2014_ARCH.whl   (python3 -m build,
#       offline, with Debian's python3-build and setuptools)
#   SHA256SUMS
# This machine's CPU: build/'s objects (the tests' build) linked statically, not compiled again; aarch64 is
# cross-built on x86-64 with Debian's cross compiler (in build-arm64/, the folder that
# scripts/arm64-check.sh tests). scripts/static-build.sh says how. Needs root or sudo the first time (apt-get, for the arm64 packages).
set -euo pipefail
cd "$(dirname "$0")/.."
arches=("$(uname -m)"); dist=dist
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) case "${2:-}" in all) arches=(x86_64 aarch64) ;; x86_64|aarch64) arches=("$2") ;;
              *) echo "release: --arch x86_64, aarch64 or all" >&2; exit 2 ;; esac; shift 2 ;;
    -o) dist="${2:?-o DIST}"; shift 2 ;;
    *) echo "usage: scripts/release.sh [--arch x86_64|aarch64|all] [-o DIST]" >&2; exit 2 ;;
  esac
done
fail() { echo "release: FAILED: $*" >&2; exit 1; }
t0=$(date +%s)
repo="$(pwd -P)"
mkdir -p "$dist"; dist="$(realpath "$dist")"
version="$(sed -n 's/^project(npu_advisor VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
[ -n "$version" ] || fail "no version in CMakeLists.txt"
/usr/bin/python3 -c "import build, setuptools, wheel" 2>/dev/null ||
  fail "python3-build, python3-setuptools and python3-wheel are needed (scripts/install-deps.sh)"
# Reproducible archives: fixed owner, order and times (the last commit's time).
epoch="$(git log -1 --format=%ct 2>/dev/null || echo 0)"

for arch in "${arches[@]}"; do
  bin="$repo/$(bash scripts/static-build.sh "$arch")"
  # The man page and the completion, from the binary's --help (cmake/cli_docs.cmake, as the .deb's):
  # an aarch64 binary answers through qemu.
  stage="$dist/npu-advisor-$version-linux-$arch"
  rm -rf "$stage" && mkdir -p "$stage/bin" "$stage/share/man/man1" "$stage/share/bash-completion/completions" \
    "$stage/share/doc/npu-advisor"
  help_bin="$bin"
  if [ "$arch" != "$(uname -m)" ]; then
    help_bin="$(dirname "$bin")/npu-advisor-help"
    # argv[0] the wrapper's path, which cli_docs.cmake replaces by npu-advisor in the usage lines
    printf '#!/bin/sh\nexec qemu-%s-static -0 %q %q "$@"\n' "$arch" "$help_bin" "$bin" >"$help_bin"; chmod +x "$help_bin"
  fi
  cmake "-DBIN=$help_bin" "-DVERSION=$version" "-DMAN=$stage/share/man/man1/npu-advisor.1" \
    "-DCOMPLETION=$stage/share/bash-completion/completions/npu-advisor" -P cmake/cli_docs.cmake
  gzip -9nf "$stage/share/man/man1/npu-advisor.1"
  cp "$bin" "$stage/bin/npu-advisor"
  cp README.md "$stage/share/doc/npu-advisor/"
  cp -r docs "$stage/share/doc/npu-advisor/docs"
  tarball="npu-advisor-$version-linux-$arch.tar.gz"
  tar -C "$dist" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$(basename "$stage")" |
    gzip -9n >"$dist/$tarball"
  rm -rf "$stage"
  echo "release: $dist/$tarball ($(du -k "$dist/$tarball" | cut -f1) KiB)"

  # The wheel: the same binary inside the pure-Python package (python/).
  rm -rf python/build python/*.egg-info python/npu_advisor/bin
  mkdir -p python/npu_advisor/bin && cp "$bin" python/npu_advisor/bin/npu-advisor
  rm -f "$dist"/npu_advisor-"$version"-*"$arch".whl
  NPU_ADVISOR_WHEEL_ARCH="$arch" SOURCE_DATE_EPOCH="$epoch" \
    /usr/bin/python3 -m build --no-isolation --wheel --outdir "$dist" python >"$dist/wheel-$arch.log" 2>&1 ||
    { cat "$dist/wheel-$arch.log"; fail "python3 -m build (above)"; }
  rm -rf python/build python/*.egg-info python/npu_advisor/bin "$dist/wheel-$arch.log"
  wheel="$(ls "$dist"/npu_advisor-"$version"-py3-none-*"$arch".whl)"
  echo "release: $wheel ($(du -k "$wheel" | cut -f1) KiB)"
done
(cd "$dist" && sha256sum npu-advisor-*.tar.gz npu_advisor-*.whl >SHA256SUMS)
echo "release: $(ls "$dist" | wc -l) files in $dist ($(( $(date +%s) - t0 )) s)"
