#!/usr/bin/env bash
# Cluster benchmark: generates an N-rank cluster (tools/gen_cluster.py, a planted slow rank),
# scales every rank's trace to SIZE with ../shared/tools/scale_trace.py, then times
# `npu-advisor analyze CLUSTER` and prints wall time and peak memory next to one rank's peak RSS:
# with --workers W the cluster's peak should stay at about W ranks' worth, not N.
#
#   bench/cluster.sh [--ranks 64] [--size 100M] [--ops 6] [--workers 2] [--out DIR] [--build DIR] [--clean-after]
#
# --ops: operators (layers) per generated step. The default 6 makes ~2 KB steps, 53,604 of them
# per 100 MB rank: the per-step stress case. --ops 600 makes steps of a real capture's shape
# (a few hundred per 100 MB rank, as in a scaled real or sample trace).
# The full case (64 ranks x 100 MB = 6.4 GB of traces) takes disk and a long time on a small
# machine: try `--ranks 8 --size 20M` first.
set -euo pipefail

die() { echo "bench/cluster.sh: error: $*" >&2; exit 1; }
say() { echo "[cluster-bench] $*" >&2; }

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
SCALE="$REPO/../shared/tools/scale_trace.py"
RANKS=64
SIZE=100M
OPS=6
WORKERS=2
OUT="${TMPDIR:-/tmp}/npu-advisor-cluster-bench"
BUILD="${NPU_ADVISOR_BUILD:-$REPO/build}"
CLEAN_AFTER=0
PY=/usr/bin/python3
[[ -x "$PY" ]] || PY=python3

while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) RANKS="${2:?}"; shift 2 ;;
    --size) SIZE="${2:?}"; shift 2 ;;
    --ops) OPS="${2:?}"; shift 2 ;;
    --workers) WORKERS="${2:?}"; shift 2 ;;
    --out) OUT="${2:?}"; shift 2 ;;
    --build) BUILD="${2:?}"; shift 2 ;;
    --clean-after) CLEAN_AFTER=1; shift ;;
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1" ;;
  esac
done
[[ "$RANKS" =~ ^[1-9][0-9]*$ ]] || die "--ranks must be a positive integer"
[[ "$OPS" =~ ^[1-9][0-9]*$ ]] || die "--ops must be a positive integer"
BIN="$BUILD/npu-advisor"
[[ -x "$BIN" ]] || die "$BIN not found: build first (cmake --build build)"
[[ -f "$SCALE" ]] || die "$SCALE not found"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time)"
OUT="$(realpath -m -- "$OUT")"
case "$OUT/" in "$REPO"/*|/|"$HOME"/) die "refusing output folder $OUT" ;; esac

# The default shape keeps the folder names of earlier runs (their data is reused).
SHAPE=""
[[ "$OPS" != 6 ]] && SHAPE="-ops$OPS"
BASE="$OUT/base-$RANKS$SHAPE"
CL="$OUT/cluster-$RANKS-$SIZE$SHAPE"
if [[ ! -d "$CL" ]]; then
  rm -rf "$BASE" && mkdir -p "$BASE" "$CL.tmp"
  say "generating $RANKS ranks"
  "$PY" "$REPO/tools/gen_cluster.py" "$BASE" --ranks "$RANKS" --steps 4 --ops "$OPS" --slow-rank $((RANKS / 2)) >/dev/null
  for d in "$BASE"/*_ascend_pt; do
    say "scaling $(basename "$d") to $SIZE"
    "$PY" "$SCALE" "$d" "$CL.tmp/$(basename "$d")" --size "$SIZE" >/dev/null
  done
  mv "$CL.tmp" "$CL"
fi
TRACE_BYTES=$(du -cb "$CL"/*/ASCEND_PROFILER_OUTPUT/trace_view.json | tail -1 | cut -f1)

# Proportional set size: a page shared by a parent and the children it forked counts once in
# the sum (RSS would count it in every one of them).
tree_rss_kb() {  # pid: the summed memory (PSS) of the process and all its descendants
  local pids=("$1") all=() p
  while ((${#pids[@]})); do
    all+=("${pids[@]}")
    mapfile -t pids < <(for p in "${pids[@]}"; do pgrep -P "$p"; done)
  done
  # A process may have ended since it was listed: its status is gone, which is not an error.
  for p in "${all[@]}"; do cat "/proc/$p/smaps_rollup" 2>/dev/null || true; done | awk '/^Pss:/ {s += $2} END {print s + 0}'
}

# The cluster analyses its ranks in child processes, and /usr/bin/time's peak is that of the
# largest single process: the peak of all of them together is sampled (every 50 ms) beside it.
measure() {  # label, command...: prints "wall peak_pss_kb largest_rss_kb" (the process tree's peak, the largest process's)
  local log="$OUT/time-$1.log"
  shift
  /usr/bin/time -v "$@" >/dev/null 2>"$log" &
  local pid=$! peak=0 now
  while kill -0 "$pid" 2>/dev/null; do
    now=$(tree_rss_kb "$pid")
    ((now > peak)) && peak=$now
    sleep 0.05
  done
  wait "$pid" || { cat "$log" >&2; die "$* failed"; }
  local wall rss
  wall=$(grep "Elapsed (wall clock)" "$log" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$log" | awk '{print $NF}')
  ((peak > 0)) || peak=$rss  # ended before the first sample
  echo "$wall $peak $rss"
}

# The wall time of a run nothing samples: reading every process's smaps_rollup every 50 ms costs
# CPU the analysis would otherwise have (on 2 cores it added several seconds to a 17 s run).
timed() {  # label, command...: prints "wall user+sys"
  local log="$OUT/time-$1.log"
  shift
  /usr/bin/time -f "%e %U %S" "$@" >/dev/null 2>"$log" || { cat "$log" >&2; die "$* failed"; }
  tail -1 "$log" | awk '{printf "%ss %.1f\n", $1, $2 + $3}'
}

FIRST=$(ls -d "$CL"/*_ascend_pt | head -1)
read -r one_wall _ one_rss < <(measure one "$BIN" analyze "$FIRST" -q --format json -o "$OUT/one.json")
read -r cl_wall cl_cpu < <(timed cluster-time "$BIN" analyze "$CL" -q --workers "$WORKERS" --format json -o "$OUT/cluster.json")
read -r _ cl_rss cl_largest < <(measure cluster "$BIN" analyze "$CL" -q --workers "$WORKERS" --format json -o "$OUT/cluster.json")
SLOW=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["facts"]["cluster"]["slow_rank"]["rank"])' "$OUT/cluster.json")

STEPS=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["facts"]["overall"]["steps"])' "$OUT/one.json")
printf '\n%-44s %s\n' "cluster" "$RANKS ranks x $SIZE trace ($((TRACE_BYTES / 1000000)) MB in all), $WORKERS workers"
printf '%-44s %s\n' "steps per rank" "$STEPS ($OPS operators per step)"
printf '%-44s %s\n' "one rank: wall, peak RSS" "$one_wall, $((one_rss / 1024)) MiB"
printf '%-44s %s\n' "cluster analyze: wall, CPU (user + sys)" "$cl_wall, ${cl_cpu} s"
printf '%-44s %s\n' "cluster analyze: peak PSS (all processes)" "$((cl_rss / 1024)) MiB (a second run, sampled every 50 ms)"
printf '%-44s %s\n' "largest process's peak RSS" "$((cl_largest / 1024)) MiB (a child's counts the pages it shares with the parent)"
printf '%-44s %.2f (goal: about the worker count, not the rank count)\n' "cluster peak PSS / one rank's RSS" "$(echo "$cl_rss / $one_rss" | bc -l)"
printf '%-44s %s (planted: %s)\n' "slow rank found" "$SLOW" "$((RANKS / 2))"
[[ "$CLEAN_AFTER" == 1 ]] && rm -rf "$BASE" "$CL"
exit 0
