#!/usr/bin/env bash
# CI: the npu_advisor wheel (docs/python.md) installed the way a user installs it, with no network.
#   scripts/python-check.sh DIST     # DIST: what scripts/release.sh wrote (this CPU's wheel is used)
# 1. a fresh `python3 -m venv` (nothing but pip) installs the wheel with `pip install --no-index`
#    (offline: the wheel needs nothing else), then runs the README's one-liner, the `npu-advisor`
#    command and the API tests (tests/python/test_api.py: analyze, facts, compare, whatif, errors,
#    the sample and ../shared/realdata) without pandas;
# 2. a venv that sees Debian's packages (--system-site-packages: pandas, ipykernel, nbconvert,
#    selenium) installs it the same way and runs the tests with pandas, the notebook view in
#    headless chromium (tests/python/notebook_view_browser_test.py: screenshots in
#    build-python-check/artefacts/) and the example notebook (examples/npu_advisor.ipynb) through
#    `jupyter nbconvert --execute`.
set -euo pipefail
cd "$(dirname "$0")/.."
dist="$(realpath "${1:?usage: python-check.sh DIST}")"
arch="$(uname -m)"
fail() { echo "python-check: FAILED: $*" >&2; exit 1; }
t0=$(date +%s)
step() { echo "== python-check: $* ($(( $(date +%s) - t0 )) s)"; }
wheel="$(ls "$dist"/npu_advisor-*-py3-none-*"$arch"*.whl 2>/dev/null | head -1)"
[ -n "$wheel" ] || fail "no $arch wheel in $dist (scripts/release.sh)"
work="$(pwd -P)/build-python-check"
rm -rf "$work" && mkdir -p "$work/artefacts"
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
export NPU_ADVISOR_REPO="$(pwd -P)" PYDEVD_DISABLE_FILE_VALIDATION=1  # (ipykernel's debugger warnings)
unset NPU_ADVISOR_BINARY

# -- 1. a bare venv
/usr/bin/python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$wheel"
step "installed $(basename "$wheel") into a fresh venv, offline"
cd "$work"  # away from the source tree: the package must come from the venv, not python/
top="$("$work/venv/bin/python" -c "import npu_advisor as n; r = n.analyze('$NPU_ADVISOR_REPO/testdata/sample'); print(r.findings[0].title)")"
echo "python-check: top finding of the sample: $top"
[ -n "$top" ] || fail "no top finding printed"
"$work/venv/bin/npu-advisor" --version
set +e; err="$("$work/venv/bin/python" -c "import npu_advisor as n; n.analyze('/no/such/run')" 2>&1)"; rc=$?; set -e
[ $rc -ne 0 ] && grep -q "NpuAdvisorError: /no/such/run: no such file or folder (npu-advisor exit code 2)" <<<"$err" ||
  fail "a bad path did not raise NpuAdvisorError naming it: $err"
echo "python-check: a bad path raises: $(tail -1 <<<"$err")"
NPU_ADVISOR_EXPECT_PANDAS=0 "$work/venv/bin/python" "$NPU_ADVISOR_REPO/tests/python/test_api.py" 2>&1 | tail -3
step "API tests passed in the bare venv (no pandas)"

# -- 2. a venv with Debian's pandas, Jupyter and selenium
/usr/bin/python3 -m venv --system-site-packages "$work/venv-sys"
"$work/venv-sys/bin/pip" install -q "$wheel"
NPU_ADVISOR_EXPECT_PANDAS=1 "$work/venv-sys/bin/python" "$NPU_ADVISOR_REPO/tests/python/test_api.py" 2>&1 | tail -3
step "API tests passed with pandas"
set +e
"$work/venv-sys/bin/python" "$NPU_ADVISOR_REPO/tests/python/notebook_view_browser_test.py" --out-dir "$work/artefacts"
rc=$?; set -e
[ $rc -eq 0 ] || [ $rc -eq 77 ] || fail "the notebook view in chromium (above)"
step "notebook view in headless chromium $([ $rc -eq 77 ] && echo SKIPPED || echo passed)"
if "$work/venv-sys/bin/python" -c "import nbconvert, ipykernel" 2>/dev/null; then
  cp "$NPU_ADVISOR_REPO/examples/npu_advisor.ipynb" "$work/"
  # the kernel is the venv's Python, with the wheel installed (Debian's own python3 kernel spec
  # names /usr/bin/python3): a kernel spec in the venv, found first through JUPYTER_PATH
  "$work/venv-sys/bin/python" -m ipykernel install --prefix "$work/venv-sys" --name python3 >/dev/null
  JUPYTER_PATH="$work/venv-sys/share/jupyter" PYDEVD_DISABLE_FILE_VALIDATION=1 \
    "$work/venv-sys/bin/python" -m nbconvert --to notebook --execute --ExecutePreprocessor.timeout=300 \
    --output executed.ipynb "$work/npu_advisor.ipynb" >"$work/nbconvert.log" 2>&1 ||
    { tail -20 "$work/nbconvert.log"; fail "the example notebook (above)"; }
  "$work/venv-sys/bin/python" - "$work/executed.ipynb" <<'EOF'
import json, sys
nb = json.load(open(sys.argv[1]))
outs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
errors = [o for o in outs if o.get("output_type") == "error"]
assert not errors, errors
html = [o for o in outs if "text/html" in o.get("data", {})]
assert any("npu-advisor-report" in "".join(o["data"]["text/html"]) for o in html), "no report shown inline"
print("python-check: the example notebook ran: %d outputs, %d of them HTML" % (len(outs), len(html)))
EOF
  step "examples/npu_advisor.ipynb executed (jupyter nbconvert --execute)"
else
  fail "nbconvert or ipykernel missing (scripts/install-deps.sh installs jupyter-nbconvert, python3-ipykernel)"
fi
