"""The wheel's tag: the binary inside is static (no glibc, no libstdc++), so the wheel is for any
Python 3 and any Linux of its CPU: py3-none-manylinux_2_17_<arch>.manylinux2014_<arch>
(NPU_ADVISOR_WHEEL_ARCH: x86_64 or aarch64, the binary's; scripts/release.sh sets it). The version
is the project's (CMakeLists.txt), so wheel, tarball and binary agree."""
import os
import re

from setuptools import Distribution, setup
from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))


def project_version():
    with open(os.path.join(HERE, "..", "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(\s*npu_advisor\s+VERSION\s+([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("no project(npu_advisor VERSION ...) in CMakeLists.txt")
    return m.group(1)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True  # platlib, at the wheel's root: it holds a program for one CPU


class BinaryWheel(bdist_wheel):
    def get_tag(self):
        arch = os.environ.get("NPU_ADVISOR_WHEEL_ARCH", "x86_64")
        if arch not in ("x86_64", "aarch64"):
            raise RuntimeError("NPU_ADVISOR_WHEEL_ARCH must be x86_64 or aarch64, not " + arch)
        return "py3", "none", "manylinux_2_17_{0}.manylinux2014_{0}".format(arch)


binary = os.path.join(HERE, "npu_advisor", "bin", "npu-advisor")
if "bdist_wheel" in os.sys.argv and not os.path.isfile(binary):
    raise RuntimeError(binary + " is missing: scripts/release.sh copies the static binary there")

setup(version=project_version(), distclass=BinaryDistribution, cmdclass={"bdist_wheel": BinaryWheel})
