# Cross-compiling npu-advisor for 64-bit Arm (Kunpeng and other aarch64 hosts) on a Debian 12 x86-64
# machine, with Debian's cross compiler and the arm64 libraries installed side by side (multiarch):
#   apt-get install crossbuild-essential-arm64 qemu-user-static libfmt-dev:arm64 ...
#   cmake -S . -B build-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
# scripts/arm64-check.sh does all of it, runs the unit tests under qemu and compares the outputs
# with the native build's (docs/arm64.md).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# find_package / find_library look in /usr/lib/aarch64-linux-gnu (and its cmake/ folder), never in
# the host's /usr/lib/x86_64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# pkg-config (lua5.4) reads the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# Programs built here run under qemu's user-mode emulator (gtest_discover_tests, ctest), so
# binfmt_misc need not be registered. No -L sysroot: the loader is the multiarch libc6:arm64's
# (/lib/ld-linux-aarch64.so.1), the same version as the libc it loads from /lib/aarch64-linux-gnu.
# With -L /usr/aarch64-linux-gnu the cross toolchain's older loader (libc6-arm64-cross) met the
# multiarch libc, and pthread_create spun for ever (docs/arm64.md).
find_program(NPU_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(NPU_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${NPU_QEMU_AARCH64}")
endif()
