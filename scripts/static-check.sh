#!/usr/bin/env bash
# Proof that the static npu-advisor runs anywhere (docs/release.md): runs it in an empty root, a
# chroot holding only the binary and its inputs (no libc, no loader, no /etc, no /proc, no shell),
# aarch64 under qemu-user-static copied into that root the same way, and compares its
# `analyze --format json` and `facts` of the sample and of real inputs from ../shared/realdata byte
# for byte with the normal (dynamic) build's, through scripts/golden-outputs.sh. The inputs are
# copied into the root at their own absolute paths, so the paths the outputs name are the same.
# Then checks what cannot work in an empty root fails clearly: the collector (`analyze OUT -- CMD`
# starts Python) names the missing program, and a missing input names the file.
#   scripts/static-check.sh x86_64|aarch64 STATIC_BIN NATIVE_BIN
# Needs root (or sudo) for chroot. Writes build-static-check/ARCH/.
set -euo pipefail
cd "$(dirname "$0")/.."
arch="${1:?usage: static-check.sh x86_64|aarch64 STATIC_BIN NATIVE_BIN}"
bin="$(realpath "${2:?static binary}")"; native="$(realpath "${3:?native binary}")"
SUDO=""; if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
fail() { echo "static-check: FAILED: $*" >&2; exit 1; }
t0=$(date +%s)
work="$(pwd -P)/build-static-check/$arch"
root="$work/root"
$SUDO rm -rf "$work" && mkdir -p "$root" "$work/none"

# -- the binary: no interpreter, no dynamic section, and ldd agrees where it can run it
readelf -lW "$bin" | grep -q "INTERP\|DYNAMIC" && fail "$bin has a program interpreter or a dynamic section"
if [ "$arch" = "$(uname -m)" ]; then
  lddout="$(ldd "$bin" 2>&1 || true)"  # ldd exits 1 on a static program
  grep -q "not a dynamic executable" <<<"$lddout" || fail "ldd $bin: $lddout"
  echo "static-check: ldd $bin: $(echo $lddout)"
fi
case "$arch" in
  x86_64) readelf -h "$bin" | grep -q "X86-64" || fail "$bin is not an x86-64 program"; run=(/npu-advisor) ;;
  aarch64)
    readelf -h "$bin" | grep -q "AArch64" || fail "$bin is not an aarch64 program"
    qemu="$(command -v qemu-aarch64-static)" || fail "qemu-aarch64-static missing (apt-get install qemu-user-static)"
    readelf -lW "$qemu" | grep -q INTERP && fail "$qemu is not static"
    cp "$qemu" "$root/qemu-aarch64-static"
    run=(/qemu-aarch64-static /npu-advisor) ;;
  *) fail "unknown architecture $arch" ;;
esac
cp "$bin" "$root/npu-advisor"

# -- the inputs: the sample and real ones (the same as scripts/arm64-check.sh compared before)
inputs=("$(pwd -P)/testdata/sample")
real=../shared/realdata
for p in kineto_h200/sync kineto_h200/decode ascend_db/msinsight_full_db/msprof_0.db ascend_db/msinsight_multiDevice \
         msprof_PROF/mindinsight_2device/PROF_000001_20230818142704322_COJGGGCANRMICFBC \
         ascend_torch_npu/msinsight_pytorch_2rank/text/rank0_ascend_pt; do
  if [ -e "$real/$p" ]; then inputs+=("$(realpath "$real/$p")"); else echo "static-check: no $real/$p, not compared"; fi
done
for i in "${inputs[@]}"; do
  mkdir -p "$root$(dirname "$i")" && cp -a "$i" "$root$i"
done
echo "== static-check: the empty root $root holds $(find "$root" -type f | wc -l) files: the binary$( [ "$arch" = aarch64 ] && echo " and qemu"), ${#inputs[@]} inputs"
find "$root" -maxdepth 1 | sed "s|^$root|  /|" | sort

# The static binary in the root, as golden-outputs.sh runs a binary: a wrapper outside it.
wrapper="$work/npu-advisor-in-empty-root"
printf '#!/bin/sh\nexec %s chroot %q %s "$@"\n' "$SUDO" "$root" "${run[*]}" >"$wrapper"
chmod +x "$wrapper"
echo "== static-check: $("$wrapper" --version) in the empty root"
"$wrapper" analyze "${inputs[0]}" -q | head -5

scripts/golden-outputs.sh "$native" "$work/none" "$work/native" "${inputs[@]}"
scripts/golden-outputs.sh "$wrapper" "$work/none" "$work/static" "${inputs[@]}"
[ "$(ls "$work/native" | wc -l)" -eq $((4 * ${#inputs[@]})) ] || fail "golden-outputs.sh wrote $(ls "$work/native" | wc -l) files for ${#inputs[@]} inputs"
diff -r "$work/native" "$work/static" || fail "the $arch static binary's outputs differ from the normal build's (above)"
grep -L "^exit=0$" "$work"/static/*.err | sed 's/^/static-check: non-zero exit (same in the normal build): /' || true
echo "== static-check: analyze --format json and facts of ${#inputs[@]} inputs byte-identical to the normal build's ($(( $(date +%s) - t0 )) s)"

# -- what cannot work in an empty root fails clearly, with one line and exit code 2
expect_error() {  # expect_error PATTERN ARGS...
  local pattern=$1 out rc; shift
  set +e; out="$("$wrapper" "$@" 2>&1)"; rc=$?; set -e
  [ "$rc" -ne 0 ] || fail "npu-advisor $* succeeded in the empty root"
  grep -q "$pattern" <<<"$out" || fail "npu-advisor $* in the empty root said: $out"
  echo "static-check: npu-advisor $*: exit $rc: $(grep "$pattern" <<<"$out" | head -1)"
}
expect_error "error: /no/such/run: no such file" analyze /no/such/run
expect_error "python" analyze /tmp/capture -- python3 -c pass
# -- and outside the root, on a machine with Python and torch, the collector of the static binary
# starts Python and analyzes what it wrote (the e2e test's training script, tests/e2e)
if [ "$arch" = "$(uname -m)" ] && /usr/bin/python3 -c "import torch" 2>/dev/null; then
  rm -rf "$work/capture"
  out="$("$bin" analyze "$work/capture" -q -- /usr/bin/python3 testdata/collector/train.py 2>&1)" ||
    fail "analyze OUT -- python3 train.py with the static binary: $out"
  grep -q "trained 8 steps" <<<"$out" && grep -q "torch.profiler\|Findings\|finding" <<<"$out" ||
    fail "analyze OUT -- python3 train.py with the static binary printed: $out"
  echo "static-check: the static binary captured and analyzed testdata/collector/train.py (Python $(/usr/bin/python3 -c 'import sys; print(sys.version.split()[0])'))"
fi
echo "== static-check: passed ($(( $(date +%s) - t0 )) s)"
