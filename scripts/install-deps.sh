#!/usr/bin/env bash
# Installs every build and test dependency of npu-advisor from Debian 12 packages (apt-get).
# Nothing is downloaded from anywhere else. Safe to run more than once.
#   scripts/install-deps.sh                # build and test dependencies
#   scripts/install-deps.sh --with-slurm   # and Slurm + munge, for the scale-out test (tests/slurm/,
#                                          # which starts its own daemons; CI asks for this)
#   scripts/install-deps.sh --with-mcp-client  # and Node.js + the MCP TypeScript SDK for the MCP
#                                          # server's client test (tests/mcp/: `npm ci` from its
#                                          # package-lock.json, the npm registry; CI asks for this)
# The options combine.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config ninja-build
  libsimdjson-dev        # streaming JSON (On-Demand) for trace files
  nlohmann-json3-dev     # small JSON documents (metadata, facts files)
  liblua5.4-dev          # rule engine
  libcli11-dev           # command line
  libfmt-dev             # formatting
  libyaml-cpp-dev        # gate config files (gate.yaml)
  libsqlite3-dev         # .db exports
  zlib1g-dev             # gzipped Kineto traces
  libgtest-dev libgmock-dev googletest
  python3                # sample generator, real-data cross-checks
  libjs-chart.js         # Chart.js, inlined into HTML reports at build time
  python3-jsonschema     # tests: the JSON report against docs/report.schema.json
  chromium chromium-driver python3-selenium  # tests: the HTML report in a headless browser
  python3-torch          # tests: `analyze OUT -- python train.py` end to end (CPU torch.profiler)
  python3-yaml           # tests: the Kubernetes manifests of scripts/scale-out/k8s
  clang libclang-rt-14-dev  # CI: the libFuzzer targets (scripts/ci-fuzz.sh, tests/fuzz/)
  python3-build python3-venv  # the Python wheel, built offline (scripts/release.sh, docs/python.md)
  python3-pandas python3-ipykernel jupyter-nbconvert  # CI: the wheel's to_pandas() and example notebook
)
mcp_client=0
for arg in "$@"; do
  case "$arg" in
    # The packages only: their services stay unconfigured (no /etc/slurm/slurm.conf), and the test
    # runs its own munged, slurmctld and slurmd on loopback with a config of its own.
    --with-slurm) packages+=(slurm-wlm munge) ;;
    # Debian's nodejs and npm, unless a node and npm are there already (a nodejs package that
    # carries npm, as NodeSource's does, conflicts with Debian's npm).
    --with-mcp-client)
      mcp_client=1
      command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm) ;;
    *) echo "install-deps: unknown argument $arg (known: --with-slurm, --with-mcp-client)" >&2; exit 2 ;;
  esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ "$mcp_client" = 1 ]; then
  # The exact versions of package-lock.json, into tests/mcp/node_modules (git ignores it).
  echo "install-deps: npm ci in tests/mcp (node $(node --version))"
  (cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error)
fi
