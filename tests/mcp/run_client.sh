#!/usr/bin/env bash
# The MCP server end to end with the official TypeScript SDK as its client (client.mjs, docs/mcp.md):
#   run_client.sh NPU_ADVISOR_BIN SOURCE_DIR
# Skipped (exit 77) without Node.js, without tests/mcp/node_modules (`npm ci` in tests/mcp:
# scripts/install-deps.sh --with-mcp-client) or without ../shared/realdata; failed instead when
# NPU_ADVISOR_REQUIRE_MCP=1 (CI sets it: there a skip would hide that the test did not run).
set -uo pipefail

BIN="$(realpath "$1")" REPO="$(realpath "$2")"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
source "$HERE/../skip_test.sh"
skip() { skip_test NPU_ADVISOR_REQUIRE_MCP "$@"; }

command -v node >/dev/null || skip "node not found (apt-get install nodejs npm)"
for pkg in sdk client; do
  [[ -f "$HERE/node_modules/@modelcontextprotocol/$pkg/package.json" ]] ||
    skip "tests/mcp/node_modules/@modelcontextprotocol/$pkg is missing: run 'npm ci' in tests/mcp (scripts/install-deps.sh --with-mcp-client)"
done
[[ -d "$REPO/../shared/realdata" ]] || skip "../shared/realdata is absent"

cd "$REPO" && exec node "$HERE/client.mjs" "$BIN"
