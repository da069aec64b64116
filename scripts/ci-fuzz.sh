#!/usr/bin/env bash
# CI: the libFuzzer targets (tests/fuzz/: the trace, CSV and SQLite loaders, the decimal
# parser, the rule sandbox, facts files), built with clang, ASan and UBSan in a build folder of their own,
# replay their seed corpora, then each runs for a bounded time. A finding fails the run and its
# log (with the crash file's path) is printed. Known, already-reported findings are skipped as
# in `ninja fuzz_smoke` (tests/fuzz/README.md).
#   scripts/ci-fuzz.sh [SECONDS_PER_TARGET]   # default 20
set -euo pipefail
seconds=${1:-20}
cd "$(dirname "$0")/.."
build=build-fuzz
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNPU_ADVISOR_FUZZ=ON \
    -DNPU_ADVISOR_TESTS=OFF -DNPU_ADVISOR_BENCH=OFF >/dev/null
fi
start=$(date +%s)
ninja -C "$build" fuzz_smoke
echo "ci-fuzz: built and replayed the seed corpora in $(( $(date +%s) - start )) s"
export UBSAN_OPTIONS="suppressions=$PWD/tests/fuzz/ubsan_known.supp"
export NPU_FUZZ_SKIP=msg-one-line,int-exact
failed=0
for t in trace_json csv decimal db rule side_json facts mcp; do
  log="$build/fuzz-work/$t/ci.log"
  mkdir -p "$(dirname "$log")"
  # A fixed seed: the same mutations every run (what a run explores still depends on its speed).
  if tests/fuzz/run_fuzzer.sh "$build" "$t" "$seconds" -seed=1 >"$log" 2>&1; then
    echo "ci-fuzz: $t: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1) in ${seconds} s, no finding"
  else
    echo "ci-fuzz: $t: FINDING (log: $log)"
    tail -60 "$log"
    failed=1
  fi
done
exit $failed
