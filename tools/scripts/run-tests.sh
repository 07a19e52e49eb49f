#!/usr/bin/env bash
# Quick start, step 2 (and CI): install missing packages, build, and run the whole test suite that needs no GPU
# (every label, `slow` included). GPU tests report as skipped, never as passed. Then the `asan` preset (ASan +
# UBSan, findings fatal, leak checks on) builds the libraries and the sim's own test executables (test_sim,
# test_sim_skinny_large, every port test) and runs their tests, so a memory error or undefined behaviour in the sim,
# the kernels' host code or the reference code they call fails CI. Why only those: the libraries are 130 of the
# 156 compiles this needs, and every test executable but gpu/slow would be 268 compiles at ~1.9x the CPU of a
# default compile, more than the 30-minute CI budget leaves (docs/ARCHITECTURE.md, "Labels and CI").
# DSV4_ASAN_TARGETS="all" DSV4_ASAN_CTEST_ARGS='-LE gpu|slow' widens it to the whole CPU suite; DSV4_ASAN=0 skips it.
# Exit status: non-zero if either run fails. Extra arguments go to the default run's ctest, e.g. `-L formats`.
set -euo pipefail
cd "$(dirname "$0")/../.."
# --with-amd: clang-22 + rocm-device-libs (~400 MiB) so CI also compiles every kernel for gfx90a/gfx942/gfx950 and
# checks its LDS/register budgets (docs/amd.md). If they cannot be installed, the AMD ctests report Skipped.
tools/scripts/deps.sh --with-amd || { echo "run-tests: AMD toolchain not installed; AMD compile checks will be skipped"; tools/scripts/deps.sh; }
tools/scripts/build.sh default
rc=0
ctest --preset default "$@" || rc=$?
if [[ "${DSV4_ASAN:-1}" != 0 ]]; then
  # Neither the AMD objects nor the benchmarks: the sanitizers check host code. gpu/slow executables are not built.
  cmake --preset asan -DDSV4_AMD_COMPILE_CHECK=OFF -DDSV4_BUILD_BENCHMARKS=OFF "-DDSV4_TEST_SKIP_LABELS=gpu;slow" \
    >/dev/null
  read -r -a asan_targets <<<"${DSV4_ASAN_TARGETS:-test_sim test_sim_skinny_large dsv4_tests_port}"
  cmake --build --preset asan -j "${DSV4_JOBS:-$(nproc)}" --target "${asan_targets[@]}"
  read -r -a asan_ctest <<<"${DSV4_ASAN_CTEST_ARGS:--L ^(sim|port)$ -LE gpu|slow|tools|hipsim}"
  # (tests of unbuilt gtest executables carry no label, so the label filter skips them; `tools` runs dsv4check;
  # hipsim's tests are clang-22 executables outside this build)
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --preset asan "${asan_ctest[@]}" || rc=$?
fi
exit "$rc"
