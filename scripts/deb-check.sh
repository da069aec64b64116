#!/usr/bin/env bash
# CI, after the tests: the Debian package end to end. Builds it from ./build (cpack -G DEB), installs it
# with apt-get (its Depends from dpkg-shlibdeps must resolve), runs the installed /usr/bin/npu-advisor
# away from the source tree on the shipped sample (text and HTML: the rules and templates are compiled
# in), checks the man page, the bash completion and the docs, then removes the package and checks that
# the binary is gone. Needs root (or sudo) and a configured build folder; refuses to run where
# npu-advisor is already installed as a package (it would remove it).
#   scripts/deb-check.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="$(realpath "${1:-build}")"
REPO="$(pwd -P)"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
fail() { echo "deb-check: FAILED: $*" >&2; exit 1; }
step() { echo "== deb-check: $* ($(( $(date +%s) - t0 )) s)"; }
t0=$(date +%s)

if dpkg-query -W -f='${Status}' npu-advisor 2>/dev/null | grep -q "install ok installed"; then
  fail "the npu-advisor package is already installed here: remove it first (this check installs and removes it)"
fi
rm -f "$BUILD"/npu-advisor_*.deb
cmake --build "$BUILD" --target npu-advisor cli_docs -j "$(nproc)"
(cd "$BUILD" && cpack -G DEB >/dev/null)
deb="$(ls "$BUILD"/npu-advisor_*.deb)"
step "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
dpkg-deb --field "$deb" Package Version Architecture Depends
contents="$(dpkg-deb --contents "$deb")"
for f in ./usr/bin/npu-advisor ./usr/share/man/man1/npu-advisor.1.gz \
         ./usr/share/bash-completion/completions/npu-advisor ./usr/share/doc/npu-advisor/README.md \
         ./usr/share/doc/npu-advisor/docs/mcp.md; do
  grep -q " $f\$" <<<"$contents" || fail "$f is not in the package"
done

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -qq "$deb" >/dev/null
step "installed"
trap '$SUDO apt-get remove -y -qq npu-advisor >/dev/null 2>&1 || true' EXIT
[ -x /usr/bin/npu-advisor ] || fail "/usr/bin/npu-advisor is not there"
work="$(mktemp -d)"
trap '$SUDO apt-get remove -y -qq npu-advisor >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
(
  cd "$work"  # away from the source tree: nothing may be read from it but the sample
  /usr/bin/npu-advisor --version
  /usr/bin/npu-advisor analyze "$REPO/testdata/sample" >report.txt
  grep -q "dispatch.host_bound\|host cannot launch" report.txt || { cat report.txt; fail "no findings on the sample"; }
  /usr/bin/npu-advisor analyze "$REPO/testdata/sample" -q -o report.html
  grep -q "Chart" report.html || fail "the HTML report has no charts (templates or Chart.js not compiled in)"
  [ "$(/usr/bin/npu-advisor rules list | grep -c '^[a-z]')" -ge 20 ] || fail "fewer than 20 built-in rules"
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}' |
    /usr/bin/npu-advisor mcp --allow "$REPO/testdata" 2>/dev/null | grep -q '"supportedVersions"' || fail "mcp does not answer"
)
step "the installed binary analyzed testdata/sample"
[ -f /usr/share/man/man1/npu-advisor.1.gz ] || fail "the man page is not installed"
if command -v man >/dev/null; then  # man-db is not on a minimal Debian image
  man -w npu-advisor | grep -q "/usr/share/man/man1/npu-advisor.1.gz" || fail "man -w npu-advisor does not find the page"
fi
zcat /usr/share/man/man1/npu-advisor.1.gz | grep -q '^\.SS mcp' || fail "the man page has no mcp section"
bash -c 'source /usr/share/bash-completion/completions/npu-advisor && complete -p npu-advisor' >/dev/null ||
  fail "the bash completion does not load"
$SUDO apt-get remove -y -qq npu-advisor >/dev/null
[ ! -e /usr/bin/npu-advisor ] || fail "/usr/bin/npu-advisor is still there after apt-get remove"
[ ! -e /usr/share/man/man1/npu-advisor.1.gz ] || fail "the man page is still there after apt-get remove"
step "removed: /usr/bin/npu-advisor is gone"
