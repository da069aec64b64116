#!/usr/bin/env bash
# Runs one fuzz target for a while with its seeds and dictionary.
#
#   tests/fuzz/run_fuzzer.sh BUILD_DIR TARGET SECONDS [extra libFuzzer flags...]
#   e.g. tests/fuzz/run_fuzzer.sh build-fuzz trace_json 300
#
# The growing corpus goes to BUILD_DIR/fuzz-work/TARGET/corpus, crashes to
# BUILD_DIR/fuzz-work/TARGET/artifacts/, the log to BUILD_DIR/fuzz-work/TARGET/log.
# NPU_FUZZ_SKIP and UBSAN_OPTIONS=suppressions=tests/fuzz/ubsan_known.supp let a run go on
# past findings that are already known (see README.md).
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n 2,10p "$0"
  exit 2
fi
build=$1 target=$2 seconds=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
bin="$build/tests/fuzz/fuzz_$target"
work="$build/fuzz-work/$target"
mkdir -p "$work/corpus" "$work/artifacts"
dict=()
[ -f "$here/dict/$target.dict" ] && dict=(-dict="$here/dict/$target.dict")
max_len=4096
[ "$target" = decimal ] && max_len=64
"$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len="$max_len" \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "${dict[@]}" "$@" \
  "$work/corpus" "$here/corpus/$target" 2>&1 | tee -a "$work/log"
