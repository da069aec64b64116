# Sourced by the shell tests that need something the machine may lack (Slurm, the MCP SDK):
#   skip_test REQUIRE_VAR MESSAGE...
# exits 77 (ctest: skipped, with SKIP_RETURN_CODE 77) saying why, or fails (exit 1) when the
# environment variable named REQUIRE_VAR is 1: CI sets it where a skip would hide that the test
# did not run.
skip_test() {
  local var="$1"
  shift
  if [[ "${!var:-0}" == 1 ]]; then
    echo "FAILED ($var=1): $*" >&2
    exit 1
  fi
  echo "SKIPPED: $*"
  exit 77
}
