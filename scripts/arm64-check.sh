#!/usr/bin/env bash
# CI, last: npu-advisor on 64-bit Arm (aarch64, the Kunpeng hosts of Ascend servers), from an x86-64
# Debian 12 machine. Cross-builds the static release npu-advisor and the unit tests with Debian's
# cross compiler and the arm64 libraries (multiarch; scripts/static-build.sh, the build that
# scripts/release.sh ships: CI builds aarch64 once), runs the unit tests and `analyze` of the shipped
# sample under qemu's user-mode emulator (no binfmt_misc needed), then runs the binary in an empty
# root under qemu and compares `analyze --format json` and `facts` of the sample and of a few real
# inputs byte for byte with the native build's (scripts/static-check.sh; docs/arm64.md).
#   scripts/arm64-check.sh [NATIVE_BUILD_DIR]   # default ./build, as scripts/quickstart.sh makes it
#   scripts/arm64-check.sh --install-only       # step 1 alone (CI runs it beside the native build:
#                                               # downloads and unpacking, while the compiler has the cores)
# Needs root or sudo (apt-get, chroot). Writes build-arm64/ (the build, and the two arm64 -dev
# packages that cannot be installed beside their amd64 ones, unpacked in build-arm64/deps) and
# build-deps/ (simdjson and fmt, static, from their Debian sources: scripts/static-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
install_only=0
if [ "${1:-}" = "--install-only" ]; then install_only=1; shift; fi
NATIVE="$(realpath "${1:-build}")"
ARM="$(pwd -P)/build-arm64"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
fail() { echo "arm64-check: FAILED: $*" >&2; exit 1; }
t0=$(date +%s); tp=$t0
phase() { local now; now=$(date +%s); echo "== arm64-check: $* ($((now - tp)) s, $((now - t0)) s in all)"; tp=$now; }
[ $install_only = 1 ] || [ -x "$NATIVE/npu-advisor" ] || fail "no native $NATIVE/npu-advisor to compare with (run scripts/quickstart.sh)"

# -- 1. the cross compiler, qemu and the arm64 libraries
# Multi-Arch "same": installed beside the amd64 ones.
multiarch=(libfmt-dev liblua5.4-dev libsqlite3-dev zlib1g-dev libgtest-dev libgmock-dev
           libsimdjson14 libyaml-cpp0.7)  # the run-time libraries of the two below (Debian 12 names)
# Not Multi-Arch "same": installing the arm64 package would remove the amd64 one (and break the
# native build), so they are unpacked into build-arm64/deps instead; their headers are the same files.
unpacked=(libsimdjson-dev libyaml-cpp-dev)
packages=(crossbuild-essential-arm64 qemu-user-static jq "${multiarch[@]/%/:arm64}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  dpkg --print-foreign-architectures | grep -qx arm64 || $SUDO dpkg --add-architecture arm64
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
deps="$ARM/deps"
# Unpacked once (CI's --install-only run does it beside the native build; the full run finds it).
if [ "$(cat "$deps/unpacked" 2>/dev/null)" != "${unpacked[*]}" ]; then
  mkdir -p "$deps/debs"
  (cd "$deps/debs" && rm -f ./*.deb && apt-get download -qq "${unpacked[@]/%/:arm64}" 2>/dev/null)
  for d in "$deps"/debs/*.deb; do dpkg-deb -x "$d" "$deps"; done
  # Their lib*.so links point at the run-time library beside them: point them at the installed one.
  lib=/usr/lib/aarch64-linux-gnu
  for so in "$deps/usr/lib/aarch64-linux-gnu"/lib*.so; do
    ln -sf "$lib/$(basename "$(readlink "$so")")" "$so"
    # and the versioned names that their CMake files give
    for f in "$lib/$(basename "$so")".*; do ln -sf "$f" "$deps/usr/lib/aarch64-linux-gnu/"; done
  done
  echo "${unpacked[*]}" >"$deps/unpacked"
fi
phase "installed"
[ $install_only = 0 ] || exit 0

# -- 2. the cross build, static: the two programs the checks run, nothing else
bash scripts/static-build.sh aarch64 npu-advisor npu_tests >/dev/null  # stdout: build-arm64/npu-advisor
aarch64-linux-gnu-readelf -h "$ARM/npu-advisor" | grep -q "AArch64" || fail "$ARM/npu-advisor is not an aarch64 program"
phase "cross-built (static)"

# -- 3. the unit tests under qemu, in as many shards as there are cores. Programs the tests start
# (npu-advisor, python3) go through the shell; npu-advisor is given as build-arm64/npu-advisor-emulated
# (tests/CMakeLists.txt). All 381 took 154 s on two cores here (docs/arm64.md, Time in CI).
emulator=(qemu-aarch64-static)  # no -L: the multiarch loader, the same version as the libc (docs/arm64.md)
shards=$(nproc)
pids=()
for ((i = 0; i < shards; ++i)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "${emulator[@]}" "$ARM/tests/npu_tests" --gtest_brief=1 \
    >"$ARM/unit-tests-$i.log" 2>&1 &
  pids+=($!)
done
status=0
for ((i = 0; i < shards; ++i)); do
  wait "${pids[$i]}" || { status=1; cat "$ARM/unit-tests-$i.log"; }
done
[ $status = 0 ] || fail "unit tests under qemu"
grep -h "PASSED\|SKIPPED" "$ARM"/unit-tests-*.log
phase "unit tests passed under qemu"

# -- 4. the sample, and its outputs and a few real inputs' against the native build's
echo "== $ARM/npu-advisor analyze testdata/sample"
"$ARM/npu-advisor-emulated" analyze testdata/sample
phase "analyzed the sample under qemu"
# the release binary in an empty root under qemu, against the native build (scripts/static-check.sh)
bash scripts/static-check.sh aarch64 "$ARM/npu-advisor" "$NATIVE/npu-advisor"
phase "outputs in an empty root identical on aarch64 and x86-64"
