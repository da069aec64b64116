#!/usr/bin/env bash
# Submits a cluster analysis to Slurm: the map step as a job array (map.sh: `npu-advisor facts`
# per rank folder, or per K rank folders), then the reduce (reduce.sh: `analyze --facts`) once
# every map task has ended. Prints both sbatch command lines, the job ids and where the report
# will be.
#
#   slurm-submit.sh [--ranks-per-task K] [--pattern GLOB] [--bin PATH] [--format html|json|md|text]
#                   [--wait] [--timeout S] PROF WORK [-- SBATCH_OPTIONS...]
#
#   PROF    the job's profiler output: one folder per rank (GLOB, default '*_ascend_pt')
#   WORK    where facts/, logs/, missing.txt and report.FORMAT go (a shared file system, as PROF);
#           the outputs of an earlier submission to WORK are removed first
#   --bin   the npu-advisor the tasks run (default: the one on PATH), by absolute path
#   --wait  wait for the reduce (at most --timeout S, default 3600), then print the missing ranks,
#           the figures (map and reduce wall time) and exit with the reduce's exit code
#   SBATCH_OPTIONS go to both sbatch calls (--partition, --account, --time, ...); sbatch's own
#   SBATCH_* environment variables work too. See docs/scale-out.md.
set -euo pipefail

die() { echo "slurm-submit: error: $*" >&2; exit 2; }
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
K=1 PATTERN='*_ascend_pt' BIN="" FORMAT=html WAIT=0 TIMEOUT=3600
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks-per-task) K="${2:?}"; shift 2 ;;
    --pattern) PATTERN="${2:?}"; shift 2 ;;
    --bin) BIN="${2:?}"; shift 2 ;;
    --format) FORMAT="${2:?}"; shift 2 ;;
    --wait) WAIT=1; shift ;;
    --timeout) TIMEOUT="${2:?}"; shift 2 ;;
    -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[[ $# -ge 2 ]] || die "usage: slurm-submit.sh [options] PROF WORK [-- SBATCH_OPTIONS...]"
PROF="$1" WORK="$2"
shift 2
if [[ $# -gt 0 ]]; then
  [[ "$1" == "--" ]] || die "unexpected argument '$1' (sbatch options go after --)"
  shift
fi
EXTRA=("$@")
[[ "$K" =~ ^[1-9][0-9]*$ ]] || die "--ranks-per-task must be a positive integer, not '$K'"
[[ "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive number of seconds"
case "$FORMAT" in html|json|md) EXT="$FORMAT" ;; text) EXT=txt ;; *) die "--format: html, json, md or text" ;; esac
command -v sbatch >/dev/null || die "sbatch not found: this needs a Slurm client (and a cluster to submit to)"

# The tasks may start in another folder, on another node: absolute paths only.
[[ -d "$PROF" ]] || die "$PROF: not a folder"
PROF="$(cd "$PROF" && pwd)"
mkdir -p "$WORK" || die "cannot create $WORK"
WORK="$(cd "$WORK" && pwd)"
BIN="${BIN:-$(command -v npu-advisor || true)}"
[[ -n "$BIN" ]] || die "npu-advisor not on PATH: give --bin PATH"
[[ -x "$BIN" ]] || die "$BIN: not an executable"
BIN="$(cd "$(dirname "$BIN")" && pwd -P)/$(basename "$BIN")"

shopt -s nullglob
RANKS=("$PROF"/$PATTERN)
N=${#RANKS[@]}
[[ $N -gt 0 ]] || die "$PROF: no rank folder matches '$PATTERN' (see --pattern)"
TASKS=$(((N + K - 1) / K))

# Outputs of an earlier submission to WORK would be mistaken for this one's.
rm -rf "$WORK/facts" "$WORK/status" "$WORK/missing.txt" "$WORK/report.$EXT"
mkdir -p "$WORK/logs"

OPTS=(--ranks-per-task "$K" --pattern "$PATTERN" --bin "$BIN")
MAP_CMD=(sbatch --parsable --array="0-$((TASKS - 1))" --output="$WORK/logs/map-%A_%a.out" "${EXTRA[@]}"
         "$HERE/map.sh" "${OPTS[@]}" "$PROF" "$WORK")
echo "+ $(printf '%q ' "${MAP_CMD[@]}")"
submitted=$(date +%s.%N)
MAP=$("${MAP_CMD[@]}") || die "sbatch of the map array failed"
MAP="${MAP%%;*}"  # --parsable prints "id" or "id;cluster"
RED_CMD=(sbatch --parsable --dependency="afterany:$MAP" --output="$WORK/logs/reduce-%j.out" "${EXTRA[@]}"
         "$HERE/reduce.sh" "${OPTS[@]}" --format "$FORMAT" "$PROF" "$WORK")
echo "+ $(printf '%q ' "${RED_CMD[@]}")"
if ! RED=$("${RED_CMD[@]}"); then
  scancel "$MAP" 2>/dev/null || true
  die "sbatch of the reduce failed (map job $MAP cancelled)"
fi
RED="${RED%%;*}"
echo "map:    job $MAP, $TASKS array task(s), $K rank folder(s) each: $N rank folders in $PROF"
echo "reduce: job $RED, once every map task has ended (afterany)"
echo "report: $WORK/report.$EXT  (logs: $WORK/logs/, missing ranks: $WORK/missing.txt)"
[[ $WAIT == 1 ]] || exit 0

# --wait: poll the queue (sbatch --wait backs off to 32 s between polls) until the reduce leaves it.
# A job that has left slurmctld's memory (MinJobAge) is an "Invalid job id": ended too. Any
# other squeue error (a busy controller) is retried until the deadline.
deadline=$(($(date +%s) + TIMEOUT))
while :; do
  if state=$(squeue -h -j "$RED" -o %T 2>"$WORK/logs/squeue.err"); then
    [[ -z "$state" ]] && break
  elif grep -q "Invalid job id" "$WORK/logs/squeue.err"; then
    break
  fi
  if [[ $(date +%s) -ge $deadline ]]; then
    die "the reduce (job $RED) has not ended after ${TIMEOUT}s; the jobs are left to run (squeue -j $MAP,$RED)"
  fi
  sleep 0.5
done
done_at=$(date +%s.%N)
[[ -f "$WORK/status/reduce" ]] || die "the reduce (job $RED) ended without running to its end: see $WORK/logs/reduce-$RED.out"
read -r r_start r_end r_ok r_missing r_rc <"$WORK/status/reduce"
failed_tasks=()
for ((t = 0; t < TASKS; t++)); do
  read -r _ _ _ f 2>/dev/null <"$WORK/status/map-$t" || f=unfinished
  [[ "$f" == 0 ]] || failed_tasks+=("$t")
done
if [[ $r_missing -gt 0 ]]; then
  echo "map tasks that failed: ${failed_tasks[*]} (logs: $WORK/logs/map-${MAP}_TASK.out); ranks missing from the report:"
  sed 's/^/  /' "$WORK/missing.txt"
fi
# The figures: map = first task start to last task end (busy: the tasks' own run times summed),
# reduce = its own run, total = from submission to the reduce leaving the queue.
cat "$WORK"/status/map-* 2>/dev/null | awk -v n="$N" -v t="$TASKS" -v rs="$r_start" -v re="$r_end" \
  -v s="$submitted" -v d="$done_at" -v ok="$r_ok" '
  NR == 1 || $1 < lo { lo = $1 } NR == 1 || $2 > hi { hi = $2 } { busy += $2 - $1 }
  END { printf "figures: %d ranks (%d with facts), %d map tasks; map %.2f s (tasks busy %.2f s in all), reduce %.2f s, submission to report %.2f s\n",
               n, ok, t, (NR ? hi - lo : 0), busy, re - rs, d - s }'
[[ -f "$WORK/report.$EXT" ]] && echo "report: $WORK/report.$EXT"
exit "$r_rc"
