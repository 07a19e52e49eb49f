#!/usr/bin/env bash
# Quick start, step 2 (and CI): install missing packages, build, and run the whole test suite that
# needs no GPU (every label, `slow` included). GPU tests report as skipped, never as passed.
# Extra arguments go to ctest, e.g. `-L formats` or `-LE slow`.
set -euo pipefail
cd "$(dirname "$0")/../.."
# --with-amd: clang-19 + rocm-device-libs (~400 MiB) so CI also compiles every kernel for gfx90a/gfx942 and checks
# its LDS/register budgets (docs/amd.md). If they cannot be installed, the AMD ctests report Skipped.
tools/scripts/deps.sh --with-amd || { echo "run-tests: AMD toolchain not installed; AMD compile checks will be skipped"; tools/scripts/deps.sh; }
tools/scripts/build.sh default
exec ctest --preset default "$@"
