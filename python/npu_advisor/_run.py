"""Running the npu-advisor binary: where it is, and its errors as Python exceptions."""
import json
import os
import subprocess

_HERE = os.path.dirname(os.path.abspath(__file__))


class NpuAdvisorError(Exception):
    """The tool refused or failed: `message` is its one-line error (the file, and the byte or line
    where it went wrong), `exit_code` its exit status (2: bad input or usage, 1: a gate failed,
    docs/cli.md), `args_used` the command line it was given."""

    def __init__(self, message, exit_code, args_used=(), stderr=""):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.args_used = list(args_used)
        self.stderr = stderr

    def __str__(self):
        return "{} (npu-advisor exit code {})".format(self.message, self.exit_code)


def binary():
    """The npu-advisor program this package runs: $NPU_ADVISOR_BINARY when set, else the static
    binary inside the wheel (npu_advisor/bin/npu-advisor)."""
    path = os.environ.get("NPU_ADVISOR_BINARY") or os.path.join(_HERE, "bin", "npu-advisor")
    if not os.path.isfile(path):
        raise NpuAdvisorError("{}: no npu-advisor binary there (set NPU_ADVISOR_BINARY, or install "
                              "the wheel for this CPU)".format(path), 127)
    return path


def _error_line(stderr):
    """The tool's one-line error: its last line starting 'error: ', else its first non-empty line
    (a usage error: the option and what is wrong with it, then 'Run with --help ...')."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("error: "):
            return line[len("error: "):]
    return lines[0] if lines else "npu-advisor failed without a message"


def run(*args, check=True):
    """Runs `npu-advisor ARGS...` and returns its standard output (text). Raises NpuAdvisorError
    with the tool's message and exit code when it exits non-zero (and `check`)."""
    cmd = [binary()] + [str(a) for a in args]
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    except OSError as e:  # not executable, wrong CPU
        raise NpuAdvisorError("{}: cannot run it: {}".format(cmd[0], e.strerror or e), 126, cmd) from None
    stderr = done.stderr.decode("utf-8", "replace")
    if check and done.returncode != 0:
        raise NpuAdvisorError(_error_line(stderr), done.returncode, cmd, stderr)
    return done.stdout.decode("utf-8")


def run_json(*args):
    """Runs the tool and parses its standard output as JSON."""
    return json.loads(run(*args))


def options(rules=None, no_builtin_rules=False, params=None, config=None, keep_warmup=False,
            threads=None):
    """The command-line options the API functions share (each function passes only those its
    command has: docs/python.md)."""
    out = []
    for d in _as_list(rules):
        out += ["--rules", os.fspath(d)]
    if no_builtin_rules:
        out.append("--no-builtin-rules")
    for key, value in (params or {}).items():
        out += ["--set", "{}={}".format(key, value)]
    if config is not None:
        out += ["--config", os.fspath(config)]
    if keep_warmup:
        out.append("--keep-warmup")
    if threads is not None:
        out += ["--threads", str(int(threads))]
    return out


def _as_list(value):
    if value is None:
        return []
    if isinstance(value, (str, bytes, os.PathLike)):
        return [value]
    return list(value)
