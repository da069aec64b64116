#!/usr/bin/env bash
# Load benchmark for npu-advisor: scales the shipped sample run (and a real trace) to big sizes with
# ../shared/tools/scale_trace.py, times build/.../bench_load on trace_view.json with 1 and 2 threads,
# times `npu-advisor analyze` end to end, and prints a table next to the goals.
#
#   bench/run.sh [--sizes 100M,500M,1G] [--real-sizes 100M,1G] [--out DIR] [--runs N] [--threads 1,2]
#                [--build DIR] [--no-e2e] [--profile] [--clean-after]
#   bench/run.sh --clean [--out DIR]        # delete the generated inputs and exit
#
# See bench/README.md for what the figures mean.
set -euo pipefail

die() { echo "bench/run.sh: error: $*" >&2; exit 1; }
say() { echo "[bench] $*" >&2; }

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
SCALE="$REPO/../shared/tools/scale_trace.py"
SAMPLE="$REPO/testdata/sample/localhost_4242_20261122093000123_ascend_pt"
REAL_TRACE="$REPO/../shared/realdata/ascend_torch_npu/mstt_timeline_advice/ASCEND_PROFILER_OUTPUT/trace_view.json"

SIZES="100M,500M,1G"
REAL_SIZES="100M,1G"  # 1G: the many-step input (1,564 steps), where per-step passes show
OUT="${TMPDIR:-/tmp}/npu-advisor-bench"
RUNS=3
THREADS="1,2"
E2E_THREADS=2
BUILD="${NPU_ADVISOR_BUILD:-$REPO/build}"
DO_E2E=1
DO_PROFILE=0
CLEAN_ONLY=0
CLEAN_AFTER=0

usage() { sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --sizes) SIZES="${2:?--sizes needs a value}"; shift 2 ;;
    --sizes=*) SIZES="${1#*=}"; shift ;;
    --real-sizes) REAL_SIZES="${2?--real-sizes needs a value (an empty value skips the real trace)}"; shift 2 ;;
    --real-sizes=*) REAL_SIZES="${1#*=}"; shift ;;
    --out) OUT="${2:?--out needs a value}"; shift 2 ;;
    --out=*) OUT="${1#*=}"; shift ;;
    --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
    --threads) THREADS="${2:?--threads needs a value}"; shift 2 ;;
    --build) BUILD="${2:?--build needs a value}"; shift 2 ;;
    --no-e2e) DO_E2E=0; shift ;;
    --profile) DO_PROFILE=1; shift ;;
    --clean) CLEAN_ONLY=1; shift ;;
    --clean-after) CLEAN_AFTER=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer (got '$RUNS')"

# ---- output folder: absolute, never inside the repository, never / or $HOME -------------------------
OUT="$(realpath -m -- "$OUT")"
case "$OUT/" in
  "$REPO"/*) die "output folder $OUT is inside the repository; pass --out somewhere else (default: \${TMPDIR:-/tmp}/npu-advisor-bench)" ;;
esac
[[ "$OUT" != "/" && "$OUT" != "$(cd ~ 2>/dev/null && pwd -P || echo /nonexistent)" ]] || die "refusing to use $OUT as output folder"
mkdir -p "$OUT" || die "cannot create output folder $OUT"

# Only these names are ever created (and deleted) under $OUT.
clean_inputs() {
  local removed=0 p
  shopt -s nullglob
  for p in "$OUT"/sample_* "$OUT"/real_* "$OUT"/*.tmp.* "$OUT"/build-prof "$OUT"/perf.data "$OUT"/perf.data.old "$OUT"/callgrind.out*; do
    rm -rf -- "$p"; removed=1
  done
  shopt -u nullglob
  if [[ $removed == 1 ]]; then say "deleted generated inputs under $OUT (results.tsv, summary.txt and logs kept)"; else say "nothing to delete under $OUT"; fi
}

if [[ $CLEAN_ONLY == 1 ]]; then clean_inputs; exit 0; fi

# ---- tools ------------------------------------------------------------------------------------------
find_bin() {  # find_bin NAME: the binary in the build folder (top level or a subfolder such as bench/)
  local n="$1" c
  for c in "$BUILD/$n" "$BUILD/bench/$n"; do
    [[ -x "$c" && -f "$c" ]] && { echo "$c"; return 0; }
  done
  return 1
}
BUILD_HINT="build it first:  cmake -S $REPO -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C $BUILD"
BENCH_LOAD="$(find_bin bench_load)" || die "bench_load not found in $BUILD or $BUILD/bench; $BUILD_HINT"
ADVISOR="$(find_bin npu-advisor)" || die "npu-advisor not found in $BUILD; $BUILD_HINT"
if [[ -f "$BUILD/CMakeCache.txt" ]]; then
  bt="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")"
  [[ "$bt" == "Release" ]] || say "warning: $BUILD is a '${bt:-<none>}' build, not Release; figures will not be comparable"
fi
command -v python3 >/dev/null || die "python3 is needed to run $SCALE"
[[ -f "$SCALE" ]] || die "scale tool not found: $SCALE"
[[ -d "$SAMPLE" ]] || die "sample run folder not found: $SAMPLE"
TIME_BIN=""
if [[ -x /usr/bin/time ]] && /usr/bin/time -v true >/dev/null 2>&1; then
  TIME_BIN=/usr/bin/time
else
  say "note: /usr/bin/time (GNU time) not found; peak RSS comes from bench_load's own getrusage figure"
  say "      and the end-to-end RSS is not measured (install it with: apt-get install -y time)"
fi

# ---- helpers ----------------------------------------------------------------------------------------
to_bytes() {  # same units as scale_trace.py: K/M/G are powers of 1000
  local s="${1^^}"; s="${s%B}"
  [[ "$s" =~ ^([0-9]+(\.[0-9]+)?)([KMG]?)$ ]] || die "bad size '$1' (use e.g. 100M, 500M, 1G)"
  awk -v n="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]}" \
    'BEGIN { m = (u=="K") ? 1e3 : (u=="M") ? 1e6 : (u=="G") ? 1e9 : 1; printf "%.0f\n", n*m }'
}
kv() { sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" <<<"$1" | head -n1; }  # kv LINE KEY
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END { if (NR==0) {print "nan"; exit}
  if (NR%2) print a[(NR+1)/2]; else printf "%.6f\n", (a[NR/2]+a[NR/2+1])/2 }'; }
minimum() { tr ' ' '\n' | grep -v '^$' | sort -g | head -n1; }
maximum() { tr ' ' '\n' | grep -v '^$' | sort -g | tail -n1; }
fsize() { stat -c %s "$1"; }
time_rss_kb() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): *//p' "$1" | tail -n1; }

# An input is reusable when the marker says it was generated completely for the same target and its
# trace has the size scale_trace.py produces: at least the target, at most one more copy of the run.
input_ok() {  # input_ok DIR TRACE TARGET_BYTES
  local dir="$1" trace="$2" target="$3" got
  [[ -f "$dir/.bench-ok" && -f "$trace" ]] || return 1
  [[ "$(cat "$dir/.bench-ok")" == "$target" ]] || return 1
  got="$(fsize "$trace")"
  (( got >= target && got <= target + target / 20 + 4000000 ))
}

SAMPLE_NAME="$(basename "$SAMPLE")"
# gen_input KIND SIZE -> sets RUNDIR (what analyze gets) and TRACE (what bench_load gets)
gen_input() {
  local kind="$1" size="$2" target dir tmp
  target="$(to_bytes "$size")"
  dir="$OUT/${kind}_${size^^}"
  if [[ $kind == sample ]]; then
    RUNDIR="$dir/$SAMPLE_NAME"; TRACE="$RUNDIR/ASCEND_PROFILER_OUTPUT/trace_view.json"
  else
    RUNDIR="$dir/trace_view.json"; TRACE="$RUNDIR"
  fi
  if input_ok "$dir" "$TRACE" "$target"; then
    say "reusing $TRACE ($(fsize "$TRACE") bytes)"
    return 0
  fi
  if [[ -e "$dir" ]]; then say "regenerating $dir (missing, incomplete or wrong size)"; rm -rf -- "$dir"; fi
  avail_kb="$(df -Pk "$OUT" | awk 'NR==2 {print $4}')"
  (( avail_kb * 1000 > target * 13 / 10 )) || die "not enough disk space under $OUT for a $size input"
  tmp="$OUT/${kind}_${size^^}.tmp.$$"
  rm -rf -- "$tmp"; mkdir -p "$tmp"
  say "generating $kind input at $size with scale_trace.py ..."
  local t0=$SECONDS
  if [[ $kind == sample ]]; then
    python3 "$SCALE" "$SAMPLE" "$tmp/$SAMPLE_NAME" --size "$size" >&2 || { rm -rf -- "$tmp"; die "scale_trace.py failed for $kind $size"; }
  else
    [[ -f "$REAL_TRACE" ]] || { rm -rf -- "$tmp"; die "real trace not found: $REAL_TRACE"; }
    python3 "$SCALE" "$REAL_TRACE" "$tmp/trace_view.json" --size "$size" >&2 || { rm -rf -- "$tmp"; die "scale_trace.py failed for $kind $size"; }
  fi
  echo "$target" >"$tmp/.bench-ok"
  mv -- "$tmp" "$dir"
  say "  done in $((SECONDS - t0)) s"
}

warm_cache() { cat -- "$@" >/dev/null 2>&1 || true; }  # all timed runs start from a warm page cache

LOGDIR="$OUT/logs"; mkdir -p "$LOGDIR"
RESULTS="$OUT/results.tsv"
printf 'input\tbytes\tevents\tthreads\tmedian_s\tmin_s\tmb_per_s\tmev_per_s\tpeak_rss_mib\trss_ratio\tproc_wall_median_s\ttrace_median_s\tcpu_pct_median\tcpu_s_median\n' >"$RESULTS"
E2E_RESULTS="$OUT/e2e.tsv"
printf 'input\trun_bytes\tthreads\tmedian_s\tmin_s\tpeak_rss_mib\trc\n' >"$E2E_RESULTS"
NOTES=()
NCPU="$(nproc)"
# Timings are only meaningful on a quiet machine: note when the 1-minute load average is high.
BUSY_COUNT=0; BUSY_MAX=0; FIGURES=0
check_load() {
  local la
  la="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)"
  FIGURES=$((FIGURES + 1))
  if awk -v l="$la" -v n="$NCPU" 'BEGIN { exit !(l > n / 2) }'; then
    BUSY_COUNT=$((BUSY_COUNT + 1))
    BUSY_MAX="$(awk -v a="$la" -v b="$BUSY_MAX" 'BEGIN { print (a > b) ? a : b }')"
    say "  warning: load average $la on $NCPU CPUs before $1 (other processes running); timings will be noisy"
  fi
}

# bench_one LABEL TRACE THREADS: RUNS runs of bench_load, one results row
bench_one() {
  local label="$1" trace="$2" th="$3" i line secs=() tsecs=() walls=() rss=() cpu=() cpus=() bytes events log tlog rc wall
  check_load "$label threads=$th"
  for ((i = 1; i <= RUNS; i++)); do
    log="$LOGDIR/${label}_t${th}_run$i.log"; tlog="$log.time"
    rc=0
    local t0 t1
    t0=$(date +%s%N)
    if [[ -n $TIME_BIN ]]; then
      "$TIME_BIN" -v -o "$tlog" "$BENCH_LOAD" "$trace" "$th" >"$log" 2>"$log.err" || rc=$?
    else
      "$BENCH_LOAD" "$trace" "$th" >"$log" 2>"$log.err" || rc=$?
    fi
    t1=$(date +%s%N)
    if [[ $rc != 0 ]]; then
      NOTES+=("$label t=$th run $i: bench_load exited $rc: $(head -c 300 "$log.err" | tr '\n' ' ')")
      say "  $label threads=$th run $i: FAILED (rc=$rc), see $log.err"
      continue
    fi
    if [[ -s "$log.err" ]]; then NOTES+=("$label t=$th run $i stderr: $(head -c 300 "$log.err" | tr '\n' ' ')"); fi
    line="$(grep -m1 '^bytes=' "$log" || true)"
    [[ -n $line ]] || { NOTES+=("$label t=$th run $i: no result line from bench_load"); continue; }
    bytes="$(kv "$line" bytes)"; events="$(kv "$line" events)"
    secs+=("$(kv "$line" seconds)"); tsecs+=("$(kv "$line" trace_seconds)")
    wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b-a)/1e9 }')"; walls+=("$wall")
    if [[ -n $TIME_BIN ]]; then
      rss+=("$(awk -v k="$(time_rss_kb "$tlog")" 'BEGIN { printf "%.1f", k/1024 }')")
      cpu+=("$(sed -n 's/^[[:space:]]*Percent of CPU this job got: *\([0-9]*\)%.*/\1/p' "$tlog")")
      cpus+=("$(awk -F': *' '/User time \(seconds\)|System time \(seconds\)/ { t += $2 } END { printf "%.2f", t }' "$tlog")")
    else
      rss+=("$(kv "$line" peak_rss_mb)")
    fi
    say "  $label threads=$th run $i: load ${secs[-1]} s (trace ${tsecs[-1]} s, process ${wall} s${cpu:+, ${cpu[-1]}% CPU}), peak RSS ${rss[-1]} MiB"
  done
  if [[ ${#secs[@]} == 0 ]]; then
    printf '%s\t%s\t-\t%s\tFAIL\tFAIL\t-\t-\t-\t-\t-\t-\t-\t-\n' "$label" "$(fsize "$trace")" "$th" >>"$RESULTS"
    return 0
  fi
  local med mn pk pw fs tmed cmed csmed
  med="$(echo "${secs[*]}" | median)"; mn="$(echo "${secs[*]}" | minimum)"
  pk="$(echo "${rss[*]}" | maximum)"; pw="$(echo "${walls[*]}" | median)"
  tmed="$(echo "${tsecs[*]}" | median)"
  if [[ ${#cpu[@]} -gt 0 ]]; then cmed="$(echo "${cpu[*]}" | median)"; csmed="$(echo "${cpus[*]}" | median)"; else cmed=-; csmed=-; fi
  fs="$(fsize "$trace")"
  awk -v l="$label" -v b="$bytes" -v e="$events" -v t="$th" -v med="$med" -v mn="$mn" -v pk="$pk" -v fs="$fs" -v pw="$pw" \
      -v tm="$tmed" -v cm="$cmed" -v cs="$csmed" \
    'BEGIN { printf "%s\t%s\t%s\t%s\t%.3f\t%.3f\t%.1f\t%.2f\t%.1f\t%.2f\t%.3f\t%.3f\t%s\t%s\n",
             l, b, e, t, med, mn, (b/1e6)/med, (e/1e6)/med, pk, (pk*1048576)/fs, pw, tm, cm, cs }' >>"$RESULTS"
}

# e2e_one LABEL RUNDIR: RUNS runs of `npu-advisor analyze RUNDIR --format json -o /dev/null`
e2e_one() {
  local label="$1" rundir="$2" i rc t0 t1 log tlog walls=() rss=() lastrc=0
  check_load "$label analyze"
  for ((i = 1; i <= RUNS; i++)); do
    log="$LOGDIR/${label}_analyze_run$i.log"; tlog="$log.time"
    rc=0
    t0=$(date +%s%N)
    if [[ -n $TIME_BIN ]]; then
      "$TIME_BIN" -v -o "$tlog" "$ADVISOR" analyze "$rundir" --format json -o /dev/null --threads "$E2E_THREADS" >"$log" 2>&1 || rc=$?
    else
      "$ADVISOR" analyze "$rundir" --format json -o /dev/null --threads "$E2E_THREADS" >"$log" 2>&1 || rc=$?
    fi
    t1=$(date +%s%N)
    lastrc=$rc
    walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b-a)/1e9 }')")
    [[ -z $TIME_BIN ]] || rss+=("$(awk -v k="$(time_rss_kb "$tlog")" 'BEGIN { printf "%.1f", k/1024 }')")
    local extra
    # analyze prints its summary on the terminal; only warnings, errors and disagreements are notes
    extra="$(grep -iE 'warn|error|fail|differs|abort|terminat' "$log" | sed 's/^[[:space:]]*//' | head -n 3 | head -c 300 | tr '\n' ' ' || true)"
    if [[ $rc != 0 ]]; then
      if (( rc > 128 )); then
        NOTES+=("$label analyze run $i killed by signal $((rc - 128)) ($(kill -l $((rc - 128)) 2>/dev/null || echo ?)), exit $rc; see $log")
      else
        NOTES+=("$label analyze run $i exited $rc; see $log")
      fi
    fi
    if [[ -n $extra && $i == 1 ]]; then NOTES+=("$label analyze said: $extra"); fi
    say "  $label analyze run $i: ${walls[-1]} s, rc=$rc${rss:+, peak RSS ${rss[-1]} MiB}"
  done
  local bytes
  bytes="$(du -sb "$rundir" | cut -f1)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$bytes" "$E2E_THREADS" \
    "$(echo "${walls[*]}" | median)" "$(echo "${walls[*]}" | minimum)" \
    "$( [[ ${#rss[@]} -gt 0 ]] && echo "${rss[*]}" | maximum || echo -)" "$lastrc" >>"$E2E_RESULTS"
}

# ---- run --------------------------------------------------------------------------------------------
say "repo $REPO"
say "bench_load $BENCH_LOAD, npu-advisor $ADVISOR"
say "inputs and logs under $OUT; $RUNS runs per figure; $(nproc) CPUs"

IFS=',' read -r -a SIZE_LIST <<<"$SIZES"
IFS=',' read -r -a REAL_LIST <<<"$REAL_SIZES"
IFS=',' read -r -a THREAD_LIST <<<"$THREADS"
for th in "${THREAD_LIST[@]}"; do [[ "$th" =~ ^[0-9]+$ ]] || die "bad --threads entry '$th'"; done

JOBS=()  # "kind size"
for s in "${SIZE_LIST[@]}"; do [[ -n $s ]] && JOBS+=("sample ${s^^}"); done
for s in "${REAL_LIST[@]}"; do [[ -n $s ]] && JOBS+=("real ${s^^}"); done
[[ ${#JOBS[@]} -gt 0 ]] || die "nothing to do (empty --sizes and --real-sizes)"

LARGEST_SAMPLE_TRACE=""; LARGEST_BYTES=0; SMALLEST_SAMPLE_TRACE=""; SMALLEST_BYTES=0
for job in "${JOBS[@]}"; do
  read -r kind size <<<"$job"
  to_bytes "$size" >/dev/null
  gen_input "$kind" "$size"
  label="${kind}_${size}"
  warm_cache "$TRACE"
  say "bench_load on $label ($(fsize "$TRACE") bytes)"
  for th in "${THREAD_LIST[@]}"; do bench_one "$label" "$TRACE" "$th"; done
  if [[ $DO_E2E == 1 ]]; then
    [[ ! -d "$RUNDIR" ]] || warm_cache "$RUNDIR"/ASCEND_PROFILER_OUTPUT/*
    say "npu-advisor analyze on $label (--threads $E2E_THREADS)"
    e2e_one "$label" "$RUNDIR"
  fi
  if [[ $kind == sample ]]; then
    b="$(fsize "$TRACE")"
    if (( b > LARGEST_BYTES )); then LARGEST_BYTES=$b; LARGEST_SAMPLE_TRACE="$TRACE"; fi
    if (( SMALLEST_BYTES == 0 || b < SMALLEST_BYTES )); then SMALLEST_BYTES=$b; SMALLEST_SAMPLE_TRACE="$TRACE"; fi
  fi
done

# ---- optional profile -------------------------------------------------------------------------------
if [[ $DO_PROFILE == 1 && -n $LARGEST_SAMPLE_TRACE ]]; then
  PB="$OUT/build-prof"
  say "profile: building a Release copy with -g -fno-omit-frame-pointer in $PB"
  cmake -S "$REPO" -B "$PB" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNPU_ADVISOR_TESTS=OFF \
    -DCMAKE_CXX_FLAGS="-g -fno-omit-frame-pointer" >"$LOGDIR/profile-build.log" 2>&1 \
    && ninja -C "$PB" bench_load >>"$LOGDIR/profile-build.log" 2>&1 || die "profile build failed, see $LOGDIR/profile-build.log"
  PBL="$(BUILD="$PB" find_bin bench_load)"
  if command -v perf >/dev/null && perf record -o /dev/null -- true >/dev/null 2>&1; then
    say "profile: perf record -g on $LARGEST_SAMPLE_TRACE, 1 thread"
    perf record -g -o "$OUT/perf.data" -- "$PBL" "$LARGEST_SAMPLE_TRACE" 1 >&2 2>"$LOGDIR/perf-record.log" \
      || die "perf record failed, see $LOGDIR/perf-record.log"
    perf report -i "$OUT/perf.data" --stdio --no-children --percent-limit 0.5 -g none 2>/dev/null \
      | grep -v '^$' | head -60 >"$OUT/perf-report.txt" || true
    perf report -i "$OUT/perf.data" --stdio --children 2>/dev/null | head -200 >"$OUT/perf-report-children.txt" || true
    say "profile: top of $OUT/perf-report.txt (self time):"
    cat "$OUT/perf-report.txt" >&2
  elif command -v valgrind >/dev/null; then
    say "profile: perf unavailable; valgrind --tool=callgrind on $SMALLEST_SAMPLE_TRACE, 1 thread (slow)"
    valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" "$PBL" "$SMALLEST_SAMPLE_TRACE" 1 \
      >&2 2>"$LOGDIR/callgrind.log"
    callgrind_annotate "$OUT/callgrind.out" 2>/dev/null | head -60 | tee "$OUT/callgrind-report.txt" >&2 || true
  else
    say "profile: neither perf nor valgrind is installed; skipped"
  fi
fi

# ---- summary ----------------------------------------------------------------------------------------
GOAL_1T=2.5; GOAL_2T=1.5; GOAL_RSS=0.5
{
  echo
  echo "npu-advisor load benchmark  ($(date -u +%Y-%m-%dT%H:%MZ), $NCPU CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)), $RUNS runs each, warm page cache)"
  echo "goals for a 1 GB trace_view.json: load <= ${GOAL_1T} s on 1 thread, <= ${GOAL_2T} s on 2 threads, peak RSS <= ${GOAL_RSS} x file size"
  echo "load_s: bench_load's own wall time for the whole load (trace_s: the trace parse part of it); MB = 1e6 bytes, RSS in MiB;"
  echo "RSS/sz = peak RSS bytes / trace_view.json bytes; s/GB = median load time scaled to 1e9 bytes (exact for the 1G rows);"
  echo "cpu% / cpu_s = median CPU use / user+sys CPU seconds of the whole bench_load process (cpu_s barely moves when other processes compete)"
  echo
  awk -F'\t' -v g1="$GOAL_1T" -v g2="$GOAL_2T" -v gr="$GOAL_RSS" '
    NR == 1 { printf "%-12s %7s %7s %3s %8s %7s %7s %6s %6s %7s %6s %5s %4s %6s  %s\n",
                "input", "MB", "Mevents", "thr", "load_med", "min", "trace_s", "MB/s", "Mev/s", "RSS_MiB", "RSS/sz", "s/GB", "cpu%", "cpu_s", "goals (time | RSS)"; next }
    $5 == "FAIL" { printf "%-12s %7.1f %7s %3s %8s\n", $1, $2/1e6, "-", $4, "FAILED"; next }
    {
      spgb = $5 * 1e9 / $2
      goal = ($4 == 1) ? g1 : ($4 == 2) ? g2 : ""
      tv = (goal == "") ? "n/a" : sprintf("%s <=%.1f", (spgb <= goal) ? "ok  " : "MISS", goal)
      rv = sprintf("%s <=%.2f", ($10 <= gr) ? "ok  " : "MISS", gr)
      printf "%-12s %7.1f %7.2f %3s %8.3f %7.3f %7.3f %6.1f %6.2f %7.1f %6.2f %5.2f %4s %6s  %s | %s\n",
             $1, $2/1e6, $3/1e6, $4, $5, $6, $12, $7, $8, $9, $10, spgb, ($13 == "-") ? "-" : sprintf("%.0f", $13), ($14 == "-") ? "-" : sprintf("%.2f", $14), tv, rv
    }' "$RESULTS"
  if [[ $DO_E2E == 1 ]]; then
    echo
    echo "end to end: npu-advisor analyze RUN --format json -o /dev/null --threads $E2E_THREADS (whole run folder; process wall time)"
    awk -F'\t' '
      NR == 1 { printf "%-12s %10s %3s %8s %8s %8s %4s\n", "input", "run_MB", "thr", "median_s", "min_s", "RSS_MiB", "rc"; next }
      { printf "%-12s %10.1f %3s %8.3f %8.3f %8s %4s\n", $1, $2/1e6, $3, $4, $5, $6, $7 }' "$E2E_RESULTS"
  fi
  if (( BUSY_COUNT > 0 )); then
    NOTES=("machine busy: load average above $NCPU/2 before $BUSY_COUNT of $FIGURES figures (max $BUSY_MAX): other processes competed, wall times are pessimistic; cpu_s is the steadier figure" "${NOTES[@]}")
  fi
  if [[ ${#NOTES[@]} -gt 0 ]]; then
    echo
    echo "notes:"
    printf '  - %s\n' "${NOTES[@]}" | awk '!seen[$0]++' | head -40
  fi
  echo
  echo "raw figures: $RESULTS, $E2E_RESULTS; per-run logs: $LOGDIR"
  [[ $CLEAN_AFTER == 1 ]] || echo "generated inputs kept under $OUT (delete them with: bench/run.sh --clean --out $OUT)"
} | tee "$OUT/summary.txt"

if [[ $CLEAN_AFTER == 1 ]]; then clean_inputs; fi
exit 0
