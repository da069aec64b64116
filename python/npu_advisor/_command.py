"""The `npu-advisor` command of the wheel: the static binary, started in place of Python."""
import os
import sys

from ._run import NpuAdvisorError, binary


def main():
    try:
        path = binary()
    except NpuAdvisorError as e:
        sys.stderr.write("error: {}\n".format(e.message))
        return e.exit_code
    os.execv(path, [path] + sys.argv[1:])
