#!/usr/bin/env bash
# Quick start, step 2 (and CI): install missing packages, build, and run the whole test suite that
# needs no GPU (every label, `slow` included). GPU tests report as skipped, never as passed.
# Extra arguments go to ctest, e.g. `-L formats` or `-LE slow`.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/scripts/deps.sh
tools/scripts/build.sh default
exec ctest --preset default "$@"
