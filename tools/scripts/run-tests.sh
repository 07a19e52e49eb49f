#!/usr/bin/env bash
# Quick start, step 2 (and CI): install missing packages, build, and run the test suite that needs no GPU: every
# label but `slow` (DSV4_SLOW=1 adds the `slow` tests, about an hour of CPU more:
# 54 CPU-minutes of it the whole vLLM grid of the hipsim split-K GEMM). GPU tests report as skipped, never
# as passed. Then the `asan` preset (ASan + UBSan, findings fatal, leak checks on) builds the libraries and the test
# executables of the sim, the port, the kernels' host code, the reference, formats, oracle, IO and race checker, and
# runs their tests (not the frozen sm_90 path's), so a memory error, a leak or undefined behaviour there fails CI. Why not all of it: every test
# executable under ASan would be ~340 compiles at ~1.9x the CPU of a default compile, more than the 30-minute CI
# budget leaves; this set is ~250 (docs/ARCHITECTURE.md, "Labels and CI").
# DSV4_ASAN_TARGETS="all" DSV4_ASAN_CTEST_ARGS='-LE gpu|slow' widens it to the whole CPU suite; DSV4_ASAN=0 skips it.
# Exit status: non-zero if either run fails. Extra arguments go to the default run's ctest, e.g. `-L formats`.
set -euo pipefail
cd "$(dirname "$0")/../.."
# --with-amd: clang-22 + rocm-device-libs (~400 MiB) so CI also compiles every kernel for gfx90a/gfx942/gfx950 and
# checks its LDS/register budgets (docs/amd.md). If they cannot be installed, the AMD ctests report Skipped.
tools/scripts/deps.sh --with-amd || { echo "run-tests: AMD toolchain not installed; AMD compile checks will be skipped"; tools/scripts/deps.sh; }
tools/scripts/build.sh default
rc=0
slow=(-LE slow)
if [[ "${DSV4_SLOW:-0}" == 1 ]]; then slow=(); fi
ctest --preset default "${slow[@]}" "$@" || rc=$?
if [[ "${DSV4_ASAN:-1}" != 0 ]]; then
  # Neither the AMD objects nor the benchmarks: the sanitizers check host code. gpu/slow executables are not built,
  # nor the frozen sm_90 path's (`nvidia`: 757 of the 793 test-seconds of this stage under ASan).
  cmake --preset asan -DDSV4_AMD_COMPILE_CHECK=OFF -DDSV4_BUILD_BENCHMARKS=OFF "-DDSV4_TEST_SKIP_LABELS=gpu;slow;nvidia" \
    >/dev/null
  read -r -a asan_targets <<<"${DSV4_ASAN_TARGETS:-test_sim test_sim_skinny_large dsv4_tests_port dsv4_tests_kernels \
    dsv4_tests_reference test_formats dsv4_tests_oracle dsv4_tests_io dsv4_tests_race}"
  cmake --build --preset asan -j "${DSV4_JOBS:-$(nproc)}" --target "${asan_targets[@]}"
  read -r -a asan_ctest <<<"${DSV4_ASAN_CTEST_ARGS:--L ^(sim|port|kernels|reference|formats|oracle|io|race)$ -LE gpu|slow|nvidia|tools|hipsim|fixtures|fuzz}"
  # (a label regex matches each of a test's labels; tests of unbuilt gtest executables carry no label, so the
  # filter skips them; `tools` runs dsv4check; hipsim's tests are clang-22 executables not built here)
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --preset asan "${asan_ctest[@]}" || rc=$?
fi
exit "$rc"
