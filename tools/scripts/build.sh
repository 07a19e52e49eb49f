#!/usr/bin/env bash
# Configures and builds one CMake preset (default: `default`, the sim backend).
# Usage: tools/scripts/build.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/../.."
preset="${1:-default}"
jobs="${DSV4_JOBS:-$(nproc)}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
