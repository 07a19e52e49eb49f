#!/usr/bin/env bash
# Quick start, step 1: install missing Debian packages, build the default (sim) backend, and run the
# main job, `dsv4check check`, which prints one verdict table.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/scripts/deps.sh
tools/scripts/build.sh default
exec build/default/tools/dsv4check check "$@"
