#!/usr/bin/env bash
# One command on a fresh Debian machine: install what is missing, build, and
# run the default simulation (outputs in cnuas-out/).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
./build/bin/cnuas run
