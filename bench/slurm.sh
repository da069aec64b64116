#!/usr/bin/env bash
# Scale-out benchmark: the map/reduce through a real single-node Slurm on this machine (the
# test's tests/slurm/local_slurm.sh: munged, slurmctld, slurmd on loopback, stopped on exit).
# Generates an N-rank cluster (tools/gen_cluster.py), scales every rank's trace to SIZE
# (../shared/tools/scale_trace.py; '' keeps the generated size), submits it with
# scripts/scale-out/slurm-submit.sh --wait and prints its figures next to the direct analyze's.
#
#   bench/slurm.sh [--ranks 8] [--size 20M] [--ranks-per-task 1] [--out DIR] [--build DIR]
#                  [-- SBATCH_OPTIONS...]     (as root, with slurm-wlm and munge installed)
set -euo pipefail

die() { echo "bench/slurm.sh: error: $*" >&2; exit 1; }
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
RANKS=8 SIZE=20M K=1
OUT="${TMPDIR:-/tmp}/npu-advisor-slurm-bench"
BUILD="${NPU_ADVISOR_BUILD:-$REPO/build}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) RANKS="${2:?}"; shift 2 ;;
    --size) SIZE="${2?}"; shift 2 ;;
    --ranks-per-task) K="${2:?}"; shift 2 ;;
    --out) OUT="${2:?}"; shift 2 ;;
    --build) BUILD="${2:?}"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1" ;;
  esac
done
BIN="$BUILD/npu-advisor"
[[ -x "$BIN" ]] || die "$BIN not found: build first"
[[ $(id -u) -eq 0 ]] || die "run as root (the local slurmd starts the jobs)"
command -v slurmctld >/dev/null && command -v munged >/dev/null || die "install slurm-wlm and munge (scripts/install-deps.sh --with-slurm)"
OUT="$(realpath -m -- "$OUT")"
case "$OUT/" in "$REPO"/*|/) die "refusing output folder $OUT" ;; esac
mkdir -p "$OUT"

CL="$OUT/cluster-$RANKS-${SIZE:-gen}"
if [[ ! -d "$CL" ]]; then
  rm -rf "$CL.base" "$CL.tmp" && mkdir -p "$CL.tmp"
  python3 "$REPO/tools/gen_cluster.py" "$CL.base" --ranks "$RANKS" --steps 4 --slow-rank $((RANKS / 2)) >/dev/null
  for d in "$CL.base"/*_ascend_pt; do
    if [[ -n "$SIZE" ]]; then python3 "$REPO/../shared/tools/scale_trace.py" "$d" "$CL.tmp/$(basename "$d")" --size "$SIZE" >/dev/null
    else cp -r "$d" "$CL.tmp/"; fi
  done
  rm -rf "$CL.base" && mv "$CL.tmp" "$CL"
fi

source "$REPO/tests/slurm/local_slurm.sh"
trap 'local_slurm_stop; rm -rf "$OUT/slurm"' EXIT
rm -rf "$OUT/slurm"
local_slurm_start "$OUT/slurm" || die "could not start a local Slurm"

echo "cluster: $RANKS ranks, $(du -sb "$CL" | cut -f1) bytes in all ($(du -cb "$CL"/*/ASCEND_PROFILER_OUTPUT/trace_view.json | tail -1 | cut -f1) of traces), $(nproc) CPUs"
"$REPO/scripts/scale-out/slurm-submit.sh" --ranks-per-task "$K" --bin "$BIN" --format json --wait --timeout 3000 \
  "$CL" "$OUT/work" -- "$@" | grep -E '^(figures|map:|reduce:)'
# The direct analysis of the same folder, for comparison (2 workers, npu-advisor's default).
s=$(date +%s.%N)
"$BIN" analyze "$CL" -q --format json -o "$OUT/direct.json"
awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "direct analyze of the same folder: %.2f s\n", e - s }'
python3 "$REPO/tests/slurm/compare_reports.py" "$OUT/direct.json" "$OUT/work/report.json"
