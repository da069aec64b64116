#!/usr/bin/env bash
# The map step of a cluster analysis: `npu-advisor facts` on the rank folders of one task.
#
#   map.sh [--ranks-per-task K] [--pattern GLOB] [--bin PATH] [--threads N] [--index I] PROF WORK
#
# PROF holds one folder per rank (GLOB, default '*_ascend_pt'); they are taken in sorted order
# and task I handles ranks I*K .. I*K+K-1. The task index is --index, else SLURM_ARRAY_TASK_ID
# (sbatch --array), else JOB_COMPLETION_INDEX (a Kubernetes Indexed Job): one command line for
# every scheduler. Writes, for each rank folder NAME:
#   WORK/facts/NAME.facts.json      its facts (written under another name, then renamed, so a
#                                   killed task never leaves half a file for the reduce)
#   WORK/facts/NAME.facts.missing   "RANK_PATH: why" when `facts` failed; the reduce reports it
#   WORK/status/map-I               "start_s end_s ok failed" of this task (the measured figures)
# A failed rank does not stop the task's other ranks; the task exits 2 if any of its ranks
# failed, so the scheduler shows which tasks did. See docs/scale-out.md.
#SBATCH --job-name=npu-advisor-map
#SBATCH --cpus-per-task=2
set -uo pipefail

# sbatch runs a copy of this script from slurmd's spool folder, so it cannot source a sibling
# file: the option parsing is repeated in map.sh, reduce.sh and slurm-submit.sh.
die() { echo "map.sh: error: $*" >&2; exit 2; }
K=1 PATTERN='*_ascend_pt' BIN="${NPU_ADVISOR:-npu-advisor}" THREADS="" INDEX=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks-per-task) K="${2:?}"; shift 2 ;;
    --pattern) PATTERN="${2:?}"; shift 2 ;;
    --bin) BIN="${2:?}"; shift 2 ;;
    --threads) THREADS="${2:?}"; shift 2 ;;
    --index) INDEX="${2:?}"; shift 2 ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[[ $# -eq 2 ]] || die "usage: map.sh [options] PROF WORK"
PROF="$1" WORK="$2"
INDEX="${INDEX:-${SLURM_ARRAY_TASK_ID:-${JOB_COMPLETION_INDEX:-}}}"
[[ "$INDEX" =~ ^[0-9]+$ ]] || die "no task index: give --index, or run as a Slurm array task or a Kubernetes Indexed Job"
[[ "$K" =~ ^[1-9][0-9]*$ ]] || die "--ranks-per-task must be a positive integer, not '$K'"
THREADS="${THREADS:-${SLURM_CPUS_PER_TASK:-0}}"  # 0: npu-advisor's default
[[ "$THREADS" =~ ^[0-9]+$ ]] || die "--threads must be a number, not '$THREADS'"
[[ $THREADS -le 64 ]] || THREADS=64  # npu-advisor's limit; more would not help one trace

shopt -s nullglob
RANKS=("$PROF"/$PATTERN)  # glob results are sorted, so every task sees the same order
[[ ${#RANKS[@]} -gt 0 ]] || die "$PROF: no rank folder matches '$PATTERN'"
first=$((INDEX * K))
[[ $first -lt ${#RANKS[@]} ]] || die "task $INDEX is past the last rank (${#RANKS[@]} ranks, $K per task)"
mkdir -p "$WORK/facts" "$WORK/status" || die "cannot create $WORK/facts"

start=$(date +%s.%N) ok=0 failed=0
for ((i = first; i < first + K && i < ${#RANKS[@]}; i++)); do
  R="${RANKS[i]}"
  out="$WORK/facts/$(basename "$R").facts"
  rm -f "$out.json" "$out.missing"
  t0=$(date +%s.%N)
  if "$BIN" facts -q --threads "$THREADS" "$R" -o "$out.json.part" 2>"$out.err"; then
    mv "$out.json.part" "$out.json"
    ok=$((ok + 1))
    echo "map task $INDEX: $R: facts in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"
  else
    rc=$?
    # npu-advisor's own message is "error: PATH:OFFSET: why"; anything else (a crash, a
    # missing binary) is kept as it is, with the exit code.
    why=$(grep -m1 '^error: ' "$out.err" | sed 's/^error: //')
    [[ -n "$why" ]] || why="$R: npu-advisor facts exited $rc: $(tr '\n' ' ' <"$out.err" | cut -c1-300)"
    echo "$why" >"$out.missing"
    rm -f "$out.json.part"
    failed=$((failed + 1))
    echo "map task $INDEX: FAILED rank $R: $why" >&2
  fi
  cat "$out.err" >&2  # npu-advisor's warnings and errors, into the task's log
  rm -f "$out.err"
done
echo "$start $(date +%s.%N) $ok $failed" >"$WORK/status/map-$INDEX"
[[ $failed -eq 0 ]] || exit 2
