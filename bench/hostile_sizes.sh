#!/usr/bin/env bash
# Issue 20, class 7: memory must follow what the input holds, not what it claims. Writes
# whitespace-heavy traces (plain and gzip) and a trace of 300k one-event threads under a temp
# folder and prints the advisor's exit code, wall time and peak RSS for each. Expected: exit 2
# "file is empty" or exit 0, and a peak of tens of MB for the whitespace whatever its size
# (before: 2-3x the whitespace); about 230 MB for the threads (before: 1.38 GB).
# Usage: bench/hostile_sizes.sh [BIN] [MB]   (defaults: build/npu-advisor, 1000)
set -euo pipefail
BIN=${1:-build/npu-advisor}
MB=${2:-1000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
EV='{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}'
spaces() { head -c $((MB * 1000000)) /dev/zero | tr '\0' ' '; }
spaces > "$T/only_ws.json"
spaces | gzip -c > "$T/only_ws.json.gz"
{ printf '[%s,' "$EV"; spaces; printf '%s]' "$EV"; } > "$T/ws_between.json"
{ printf '[%s,' "$EV"; spaces; printf '%s]' "$EV"; } | gzip -c > "$T/ws_between.json.gz"
{ printf '['; spaces; printf ']'; } | gzip -c > "$T/ws_in_array.json.gz"
python3 -c "
import sys
out = sys.stdout
out.write('[')
for i in range(300000):
    out.write(('' if i == 0 else ',') + '{\"ph\":\"X\",\"name\":\"op\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":1}' % (i, i))
out.write(']')
" > "$T/threads.json"
for f in only_ws.json only_ws.json.gz ws_between.json ws_between.json.gz ws_in_array.json.gz threads.json; do
  set +e
  /usr/bin/time -f "$f: exit %x, %e s, peak %M KB" "$BIN" analyze "$T/$f" -q --format json > /dev/null 2> "$T/err"
  set -e
  tail -n 1 "$T/err"
done
