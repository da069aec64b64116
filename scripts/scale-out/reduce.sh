#!/usr/bin/env bash
# The reduce step of a cluster analysis: one report from the facts the map tasks wrote.
#
#   reduce.sh [--ranks-per-task K] [--pattern GLOB] [--bin PATH] [--format html|json|md|text] PROF WORK
#
# Same PROF, WORK, K and GLOB as map.sh. Runs once every map task has ended, however it ended
# (Slurm: --dependency=afterany, so a task killed for time or memory does not hold the report
# back), on the ranks that have facts. A rank without facts is named, with why, in
#   WORK/missing.txt                 one "RANK_PATH: why" line per missing rank (empty: none)
# and in the report's warnings ("rank folder skipped: ...", as the direct analysis says it).
# Writes WORK/report.FORMAT (default html) and WORK/status/reduce ("start_s end_s ok missing rc").
# Exit code: npu-advisor's (0; 2 when ranks are missing or nothing could be reduced).
#SBATCH --job-name=npu-advisor-reduce
#SBATCH --cpus-per-task=1
set -uo pipefail

# sbatch runs a copy of this script from slurmd's spool folder, so it cannot source a sibling
# file: the option parsing is repeated in map.sh, reduce.sh and slurm-submit.sh.
die() { echo "reduce.sh: error: $*" >&2; exit 2; }
K=1 PATTERN='*_ascend_pt' BIN="${NPU_ADVISOR:-npu-advisor}" FORMAT=html
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks-per-task) K="${2:?}"; shift 2 ;;
    --pattern) PATTERN="${2:?}"; shift 2 ;;
    --bin) BIN="${2:?}"; shift 2 ;;
    --format) FORMAT="${2:?}"; shift 2 ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[[ $# -eq 2 ]] || die "usage: reduce.sh [options] PROF WORK"
PROF="$1" WORK="$2"
[[ "$K" =~ ^[1-9][0-9]*$ ]] || die "--ranks-per-task must be a positive integer, not '$K'"
case "$FORMAT" in html|json|md) EXT="$FORMAT" ;; text) EXT=txt ;; *) die "--format: html, json, md or text" ;; esac

shopt -s nullglob
RANKS=("$PROF"/$PATTERN)
[[ ${#RANKS[@]} -gt 0 ]] || die "$PROF: no rank folder matches '$PATTERN'"
mkdir -p "$WORK/facts" "$WORK/status" || die "cannot create $WORK/facts"

start=$(date +%s.%N) ok=0
: >"$WORK/missing.txt"
for ((i = 0; i < ${#RANKS[@]}; i++)); do
  R="${RANKS[i]}"
  f="$WORK/facts/$(basename "$R").facts"
  if [[ -f "$f.json" ]]; then
    ok=$((ok + 1))
    continue
  fi
  # No facts and no reason from map.sh: its task never got to write one (killed, or never ran).
  [[ -f "$f.missing" ]] ||
    echo "$R: no facts: map task $((i / K)) did not finish (killed for time or memory, or not run: see its log)" >"$f.missing"
  head -n1 "$f.missing" >>"$WORK/missing.txt"
done
missing=$((${#RANKS[@]} - ok))

# The profiler's own cluster analysis, if the job has one, is read beside the facts.
if [[ -d "$PROF/cluster_analysis_output" && ! -e "$WORK/facts/cluster_analysis_output" ]]; then
  ln -s "$(cd "$PROF/cluster_analysis_output" && pwd -P)" "$WORK/facts/cluster_analysis_output"
fi

REPORT="$WORK/report.$EXT"
rm -f "$REPORT"
"$BIN" analyze --facts "$WORK/facts" -q --format "$FORMAT" -o "$REPORT"
rc=$?
echo "$start $(date +%s.%N) $ok $missing $rc" >"$WORK/status/reduce"
echo "reduce: $ok of ${#RANKS[@]} ranks have facts"
if [[ $missing -gt 0 ]]; then
  echo "reduce: $missing rank(s) missing, analysed without them:" >&2
  sed 's/^/  /' "$WORK/missing.txt" >&2
fi
if [[ -f "$REPORT" ]]; then echo "report: $REPORT"; else echo "reduce: no report (exit $rc)" >&2; fi
exit $rc
