#!/usr/bin/env bash
# Quick start, step 1: install the dependencies (Debian packages), build, and analyze the
# sample run that ships with the project.
#   scripts/quickstart.sh            # build type Release, build folder ./build
# Then run the tests with:  ctest --test-dir build --output-on-failure
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
echo
echo "== npu-advisor analyze testdata/sample"
./build/npu-advisor analyze testdata/sample
