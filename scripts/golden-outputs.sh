#!/usr/bin/env bash
# Writes `analyze --format json` and `facts` of every input under a data folder (each folder up to
# depth 3 and every .json/.gz/.db file), with the run's own timing fields removed, so two builds can
# be compared byte for byte: a refactor must not move an output (issue 15).
#   scripts/golden-outputs.sh BINARY DATA_DIR OUT_DIR [EXTRA_INPUT...]
#   diff -r OUT_A OUT_B
set -u
bin=$(realpath "$1"); data=$(realpath "$2"); out=$3; shift 3
mkdir -p "$out"
strip() { jq -S 'walk(if type == "object" then del(.trace_mb_per_s, .trace_seconds, .load_seconds, .facts_seconds, .rules_seconds, .total_seconds, .wall_seconds) else . end)' 2>/dev/null || cat; }
one() {
  local input=$1 name
  name=$(printf '%s' "${input#"$data"/}" | tr '/' '_')
  [ -n "$name" ] || name=root
  { timeout 300 "$bin" analyze "$input" --format json 2>"$out/$name.analyze.err"; echo "exit=$?" >>"$out/$name.analyze.err"; } | strip >"$out/$name.analyze.json"
  { timeout 300 "$bin" facts "$input" 2>"$out/$name.facts.err"; echo "exit=$?" >>"$out/$name.facts.err"; } | strip >"$out/$name.facts.json"
}
export -f one strip; export bin data out
{ find "$data" -maxdepth 3 -mindepth 1 -type d; find "$data" -type f \( -name '*.json' -o -name '*.gz' -o -name '*.db' \); printf '%s\n' "$@"; } \
  | sort | xargs -P "${JOBS:-2}" -I{} bash -c 'one "$@"' _ {}
