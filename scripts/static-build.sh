#!/usr/bin/env bash
# Builds the static npu-advisor (glibc, libstdc++ and every library linked in; docs/release.md) for one
# CPU, with Debian's compiler, and prints the binary's path on stdout (the build's output goes to stderr).
#   scripts/static-build.sh x86_64|aarch64 [TARGET...]
# simdjson and fmt, which Debian ships only as shared libraries, come from scripts/static-deps.sh (their
# Debian source packages). Each CPU is compiled once:
# - this machine's CPU: the Release build folder build/ (the quick start's, the one the tests run; made
#   if missing) links the objects it already has into build/npu-advisor-static
#   (-DNPU_ADVISOR_STATIC_PREFIX, cmake/static_relink.cmake). A build/ of another build type is left
#   alone and build-static/ is used instead. TARGETs are not used here.
# - aarch64 on x86-64: build-arm64/, cross-compiled with -DNPU_ADVISOR_STATIC=ON (Debian's cross
#   compiler, cmake/toolchain-aarch64.cmake), TARGETs (default npu-advisor) built there: the folder
#   scripts/arm64-check.sh tests.
# Extra CMake arguments (a compiler launcher) in $NPU_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
arch="${1:?usage: static-build.sh x86_64|aarch64 [TARGET...]}"; shift
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(npu-advisor)
fail() { echo "static-build: FAILED: $*" >&2; exit 1; }
repo="$(pwd -P)"
prefix="$repo/build-deps/$arch-prefix"
if [ "$arch" = "$(uname -m)" ]; then
  bash scripts/static-deps.sh "$arch" "$prefix" >&2
  dir=build
  type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$dir/CMakeCache.txt" 2>/dev/null)"
  [ -z "$type" ] || [ "$type" = Release ] || dir=build-static
  generator=(); [ -f "$dir/CMakeCache.txt" ] || generator=(-G Ninja)
  # shellcheck disable=SC2086  # NPU_CMAKE_ARGS: words
  cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "-DNPU_ADVISOR_STATIC_PREFIX=$prefix" \
    ${NPU_CMAKE_ARGS:-} >&2
  cmake --build "$dir" -j "$(nproc)" --target npu-advisor-static >&2
  bin="$dir/npu-advisor-static"
elif [ "$arch" = aarch64 ] && [ "$(uname -m)" = x86_64 ]; then
  dir=build-arm64
  # the cross compiler, qemu and the arm64 libraries (libyaml-cpp-dev unpacked into build-arm64/deps)
  bash scripts/arm64-check.sh --install-only | tail -1 >&2
  bash scripts/static-deps.sh "$arch" "$prefix" >&2
  # shellcheck disable=SC2086  # NPU_CMAKE_ARGS: words
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNPU_ADVISOR_STATIC=ON -DNPU_ADVISOR_BENCH=OFF \
    "-DCMAKE_PREFIX_PATH=$prefix;$repo/build-arm64/deps/usr" -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake \
    ${NPU_CMAKE_ARGS:-} >&2
  cmake --build "$dir" -j "$(nproc)" --target "${targets[@]}" >&2
  bin="$dir/npu-advisor"
else
  fail "cannot build for $arch on $(uname -m) (x86_64 here, aarch64 here or cross from x86_64)"
fi
# No program interpreter, no dynamic section: nothing for a loader to find on the target machine.
if readelf -lW "$bin" | grep -q "INTERP\|DYNAMIC"; then
  fail "$bin is not static (readelf -l shows INTERP or DYNAMIC)"
fi
echo "$bin"
