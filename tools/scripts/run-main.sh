#!/usr/bin/env bash
# Quick start, step 1: install missing Debian packages, build the default (sim) backend, and run the
# main job, `dsv4check check`, which prints one verdict table. Builds only the dsv4check executable
# (and the libraries it links); tools/scripts/run-tests.sh builds and runs everything.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/scripts/deps.sh
tools/scripts/build.sh default dsv4check
exec build/default/tools/dsv4check check "$@"
