#!/usr/bin/env bash
# End to end on a real Slurm: starts a single-node Slurm on this machine (local_slurm.sh:
# munged, slurmctld, slurmd, loopback only, everything in a temp folder), generates an 8-rank
# cluster, and
#   1. runs the README's scale-out block as it is (scripts/scale-out/slurm-submit.sh through
#      sbatch, then the direct analyze of the same folder): the reduced report must equal the
#      direct one apart from the input path (compare_reports.py);
#   2. submits a damaged copy, 3 ranks per task: rank 2's trace is not JSON (its map task
#      records why) and rank 5's task is killed mid-way (no record at all): the reduce must still
#      run, on the 6 others, name both missing ranks and exit 2.
# Every daemon it started is stopped on exit. Skipped (exit 77) only where Slurm cannot run here
# (no Slurm or munge binaries, not root), and then failed instead if NPU_ADVISOR_REQUIRE_SLURM=1.
#
#   slurm_test.sh NPU_ADVISOR_BIN SOURCE_DIR
set -uo pipefail

BIN="$(realpath "$1")" REPO="$(realpath "$2")"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# CI sets NPU_ADVISOR_REQUIRE_SLURM=1: there, a skip would hide that the test did not run.
source "$HERE/../skip_test.sh"
skip() { skip_test NPU_ADVISOR_REQUIRE_SLURM "$@"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

for tool in munged mungekey munge unmunge slurmctld slurmd sbatch squeue sinfo scancel python3; do
  command -v "$tool" >/dev/null || skip "$tool not found: Slurm cannot run here (install slurm-wlm and munge: scripts/install-deps.sh --with-slurm)"
done
[[ $(id -u) -eq 0 ]] || skip "not root: a local slurmd must run as root to start jobs"

source "$HERE/local_slurm.sh"
T="$(mktemp -d /tmp/npu-advisor-slurm-test.XXXXXX)"
cleanup() {
  local_slurm_stop
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

local_slurm_start "$T/slurm" || fail "could not start a local Slurm (logs above)"
echo "local Slurm up: $SLURM_CONF"

# The README block runs in a folder holding prof/, scripts/ and npu-advisor on PATH, as a user's would.
cd "$T" || fail "cd $T"
ln -s "$REPO/scripts" scripts
mkdir bin && ln -s "$BIN" bin/npu-advisor
export PATH="$T/bin:$PATH"
python3 "$REPO/tools/gen_cluster.py" prof --ranks 8 --steps 4 --slow-rank 3 >/dev/null || fail "gen_cluster.py"
echo "cluster: 8 ranks, $(du -sb prof | cut -f1) bytes"

# 1. The README's commands, verbatim: the ```sh block after the "slurm_test.sh runs" marker.
awk '/tests\/slurm\/slurm_test.sh runs this block/ { found = 1; next }
     found && /^```sh/ { inside = 1; next }
     inside && /^```/ { exit }
     inside { print }' "$REPO/README.md" >readme_block.sh
[[ -s readme_block.sh ]] || fail "README.md: no scale-out block after the 'tests/slurm/slurm_test.sh runs this block' marker"
echo "== README block:" && cat readme_block.sh
timeout 90 bash -euo pipefail readme_block.sh || fail "the README block failed (exit $?); logs in work/logs"
[[ -f work/report.json && -f direct.json ]] || fail "the README block did not write work/report.json and direct.json"
python3 "$HERE/compare_reports.py" direct.json work/report.json || fail "the reduced report differs from the direct one"
[[ ! -s work/missing.txt ]] || fail "ranks missing in the clean run: $(cat work/missing.txt)"
python3 - work/report.json <<'EOF' || fail "the reduced report is not the planted cluster"
import json, sys
c = json.load(open(sys.argv[1]))["facts"]["cluster"]
assert c["rank_count"] == 8, c["rank_count"]
assert c["slow_rank"]["rank"] == 3, c["slow_rank"]  # gen_cluster.py --slow-rank 3
EOF

# 2. Failures. Rank 2: not a trace at all. Rank 5: its task is killed (the wrapper kills the
# map task's shell, as the OOM killer or a time limit would), so nothing says why.
cp -r prof broken
printf 'garbage' >broken/node0_10002_20261122093000002_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json
cat >kill-wrapper.sh <<EOF
#!/bin/bash
case "\$*" in *_10005_*) kill -KILL \$PPID; exit 9 ;; esac
exec "$BIN" "\$@"
EOF
chmod +x kill-wrapper.sh
timeout 90 scripts/scale-out/slurm-submit.sh --ranks-per-task 3 --bin "$T/kill-wrapper.sh" --format json --wait \
  --timeout 80 broken/ work-broken/ -- --cpus-per-task=1 >submit-broken.out 2>&1
rc=$?
cat submit-broken.out
[[ $rc -eq 2 ]] || fail "a partial cluster: slurm-submit.sh --wait exited $rc, not 2 (the reduce's partial-report code)"
grep -q "map tasks that failed: 0 1 " submit-broken.out || fail "the failed map tasks (0: rank 2, 1: rank 5) are not named"
[[ $(wc -l <work-broken/missing.txt) -eq 2 ]] || fail "missing.txt should name 2 ranks: $(cat work-broken/missing.txt)"
grep -q "_10002_.*not a JSON trace" work-broken/missing.txt || fail "rank 2's reason is not in missing.txt"
grep -q "_10005_.*: no facts: map task 1 did not finish" work-broken/missing.txt || fail "rank 5 is not named as unfinished"
python3 - work-broken/report.json <<'EOF' || fail "the partial report"
import json, sys
c = json.load(open(sys.argv[1]))["facts"]["cluster"]
assert c["rank_count"] == 6, c["rank_count"]
w = [x for x in c["warnings"] if x.startswith("rank folder skipped: ")]
assert len(w) == 2 and "_10002_" in w[0] and "_10005_" in w[1], w
EOF
echo "PASSED"
