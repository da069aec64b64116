#!/usr/bin/env bash
# Builds the static npu-advisor (-DNPU_ADVISOR_STATIC=ON: glibc, libstdc++ and every library linked
# in; docs/release.md) for one CPU, with Debian's compiler (aarch64 on x86-64: Debian's cross
# compiler, cmake/toolchain-aarch64.cmake). simdjson and fmt, which Debian ships only as shared
# libraries, come from scripts/static-deps.sh (their Debian source packages).
#   scripts/static-build.sh x86_64|aarch64 [TARGET...]   # default target: npu-advisor
# The build folder: build-static/ for this machine's CPU, build-arm64/ for aarch64 cross-built (the
# folder scripts/arm64-check.sh tests: CI builds each CPU once). Extra CMake arguments (a compiler
# launcher) in $NPU_CMAKE_ARGS. Prints the build folder on stdout (the build's output goes to stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
arch="${1:?usage: static-build.sh x86_64|aarch64 [TARGET...]}"; shift
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(npu-advisor)
fail() { echo "static-build: FAILED: $*" >&2; exit 1; }
repo="$(pwd -P)"
prefixes="$repo/build-deps/$arch-prefix"
if [ "$arch" = "$(uname -m)" ]; then
  dir=build-static; cross=()
elif [ "$arch" = aarch64 ] && [ "$(uname -m)" = x86_64 ]; then
  dir=build-arm64
  # the cross compiler, qemu and the arm64 libraries (libyaml-cpp-dev unpacked into build-arm64/deps)
  bash scripts/arm64-check.sh --install-only | tail -1 >&2
  cross=(-DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake)
  prefixes="$prefixes;$repo/build-arm64/deps/usr"
else
  fail "cannot build for $arch on $(uname -m) (x86_64 here, aarch64 here or cross from x86_64)"
fi
bash scripts/static-deps.sh "$arch" "$repo/build-deps/$arch-prefix" >&2
# shellcheck disable=SC2086  # NPU_CMAKE_ARGS: words
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNPU_ADVISOR_STATIC=ON -DNPU_ADVISOR_BENCH=OFF \
  "-DCMAKE_PREFIX_PATH=$prefixes" "${cross[@]}" ${NPU_CMAKE_ARGS:-} >&2
cmake --build "$dir" -j "$(nproc)" --target "${targets[@]}" >&2  # stdout: the folder alone
# No program interpreter, no dynamic section: nothing for a loader to find on the target machine.
if readelf -lW "$dir/npu-advisor" | grep -q "INTERP\|DYNAMIC"; then
  fail "$dir/npu-advisor is not static (readelf -l shows INTERP or DYNAMIC)"
fi
echo "$dir"
