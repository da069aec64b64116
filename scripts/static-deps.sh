#!/usr/bin/env bash
# The two static libraries Debian 12 does not ship, built from Debian's own source packages, for the
# static release binary (-DNPU_ADVISOR_STATIC=ON, docs/release.md). libsimdjson-dev and libfmt-dev
# carry only a shared library (`dpkg -L libsimdjson-dev libfmt-dev`); every other library of the
# binary has its .a in its Debian -dev package (liblua5.4-dev, libsqlite3-dev, zlib1g-dev,
# libyaml-cpp-dev, libc6-dev, libstdc++-12-dev). This script fetches the source packages of exactly
# the installed versions (`apt-get source simdjson=3.0.1-1 fmtlib=9.1.0+ds1-2`: the .dsc is checked
# against the Debian archive key, Debian's patches applied), and builds them with their own CMake
# files and Debian's options (debian/rules), but BUILD_SHARED_LIBS=OFF, for the given architecture
# (aarch64 with Debian's cross compiler). Nothing comes from outside the Debian archive, and the
# system's apt configuration is not touched: the deb-src index goes to a private folder.
#   scripts/static-deps.sh x86_64|aarch64 PREFIX
# Installs into PREFIX (lib/libsimdjson.a, lib/libfmt.a, their headers and CMake package files);
# does nothing when PREFIX already holds the same versions. Needs dpkg-dev (dpkg-source) and cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
arch="${1:?usage: static-deps.sh x86_64|aarch64 PREFIX}"
prefix="$(realpath -m "${2:?usage: static-deps.sh x86_64|aarch64 PREFIX}")"
fail() { echo "static-deps: FAILED: $*" >&2; exit 1; }
# The versions the dynamic build links: the installed -dev packages (the same for both architectures).
version() { dpkg-query -W -f='${Version}\n' "$1" 2>/dev/null | head -1; }
simdjson_v="$(version libsimdjson-dev)"; fmt_v="$(version libfmt-dev)"
[ -n "$simdjson_v" ] && [ -n "$fmt_v" ] || fail "libsimdjson-dev and libfmt-dev must be installed (scripts/install-deps.sh)"
stamp="simdjson=$simdjson_v fmtlib=$fmt_v arch=$arch"
if [ "$(cat "$prefix/.static-deps" 2>/dev/null)" = "$stamp" ]; then
  echo "static-deps: $prefix has $stamp"; exit 0
fi
case "$arch" in
  x86_64) toolchain=() ;;
  aarch64) toolchain=("-DCMAKE_TOOLCHAIN_FILE=$(pwd -P)/cmake/toolchain-aarch64.cmake") ;;
  *) fail "unknown architecture $arch (x86_64 or aarch64)" ;;
esac
command -v dpkg-source >/dev/null || fail "dpkg-source missing (apt-get install dpkg-dev)"

# -- the source packages, once for both architectures (build-deps/src)
src="$(pwd -P)/build-deps/src"
if [ "$(cat "$src/.fetched" 2>/dev/null)" != "simdjson=$simdjson_v fmtlib=$fmt_v" ]; then
  rm -rf "$src" && mkdir -p "$src/apt/lists/partial"
  # Debian's own archive, signed by the key the system trusts for its binary packages.
  uris="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${uris:-http://deb.debian.org/debian} bookworm main" \
    >"$src/apt/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$src/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
            -o "Dir::State::Lists=$src/apt/lists")
  apt-get "${apt_opts[@]}" update -qq
  (cd "$src" && apt-get "${apt_opts[@]}" source -qq "simdjson=$simdjson_v" "fmtlib=$fmt_v" >"$src/apt-get-source.log" 2>&1) ||
    { cat "$src/apt-get-source.log"; fail "apt-get source"; }
  ls -d "$src"/simdjson-*/ "$src"/fmtlib-*/ >/dev/null || fail "apt-get source gave no source trees"
  echo "simdjson=$simdjson_v fmtlib=$fmt_v" >"$src/.fetched"
fi

# -- build and install, static, Release (Debian's: RelWithDebInfo; the same code, less debug info)
build="$(pwd -P)/build-deps/work-$arch"
rm -rf "$build" "$prefix"
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DCMAKE_INSTALL_PREFIX="$prefix"
        -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_POSITION_INDEPENDENT_CODE=ON "${toolchain[@]}")
cmake -S "$src"/simdjson-*/ -B "$build/simdjson" "${common[@]}" -DSIMDJSON_DEVELOPER_MODE=OFF >/dev/null
cmake --build "$build/simdjson" -j "$(nproc)" >/dev/null
cmake --install "$build/simdjson" >/dev/null
cmake -S "$src"/fmtlib-*/ -B "$build/fmt" "${common[@]}" -DFMT_DOC=OFF -DFMT_TEST=OFF >/dev/null
cmake --build "$build/fmt" -j "$(nproc)" >/dev/null
cmake --install "$build/fmt" >/dev/null
[ -f "$prefix/lib/libsimdjson.a" ] && [ -f "$prefix/lib/libfmt.a" ] || fail "no libsimdjson.a / libfmt.a in $prefix"
# The header the binary is compiled against is the installed package's, byte for byte.
cmp -s "$prefix/include/simdjson.h" /usr/include/simdjson.h || fail "simdjson.h of the source differs from libsimdjson-dev's"
echo "$stamp" >"$prefix/.static-deps"
echo "static-deps: built $stamp into $prefix"
