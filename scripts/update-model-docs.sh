#!/usr/bin/env bash
# Regenerates docs/models/<type>.md from the models' own field declarations
# (the element types and the profile kinds that cnuas list-models shows).
# tests/cli/docs_test.cpp fails when a page is out of date.
set -euo pipefail
cd "$(dirname "$0")/.."
cnuas=${1:-build/bin/cnuas}
for type in $("$cnuas" list-models | awk '$NF == "[built-in]" || $NF == "[profile]" {print $1}'); do
  "$cnuas" describe --markdown "$type" > "docs/models/$type.md"
done
