#!/usr/bin/env bash
# Configures and builds one CMake preset (default: `default`, the sim backend): every target, or only
# the targets named after the preset (and what they depend on).
# Usage: tools/scripts/build.sh [preset [target...]]
set -euo pipefail
cd "$(dirname "$0")/../.."
preset="${1:-default}"
shift || true
jobs="${DSV4_JOBS:-$(nproc)}"
cmake --preset "$preset" >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build --preset "$preset" -j "$jobs" "${targets[@]}"
