#!/usr/bin/env bash
# Fails when a C++ source is not clang-formatted (.clang-format at the root).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "clang-format not installed; skipping format check"; exit 0; }
git ls-files '*.h' '*.cpp' | xargs clang-format --dry-run -Werror
echo "format: clean"
