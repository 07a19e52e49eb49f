#!/usr/bin/env bash
# Quick start, step 2 (and CI): install missing packages, build, and run the whole test suite that needs no GPU
# (every label, `slow` included). GPU tests report as skipped, never as passed. Then the `asan` preset (ASan +
# UBSan, findings fatal) builds the libraries and the test executables of every label but `gpu` and `slow` and runs
# those tests, so a memory error or undefined behaviour in the reference, the oracle, the fixture reader or the sim
# fails CI (docs/ARCHITECTURE.md, "Sanitizers"). Exit status: non-zero if either run fails.
# Extra arguments go to the default run's ctest, e.g. `-L formats`. DSV4_ASAN=0 skips the asan stage.
set -euo pipefail
cd "$(dirname "$0")/../.."
# --with-amd: clang-22 + rocm-device-libs (~400 MiB) so CI also compiles every kernel for gfx90a/gfx942/gfx950 and
# checks its LDS/register budgets (docs/amd.md). If they cannot be installed, the AMD ctests report Skipped.
tools/scripts/deps.sh --with-amd || { echo "run-tests: AMD toolchain not installed; AMD compile checks will be skipped"; tools/scripts/deps.sh; }
tools/scripts/build.sh default
rc=0
ctest --preset default "$@" || rc=$?
if [[ "${DSV4_ASAN:-1}" != 0 ]]; then
  # Neither the AMD objects nor the benchmarks: the sanitizers check host code. The labels left out are not built.
  cmake --preset asan -DDSV4_AMD_COMPILE_CHECK=OFF -DDSV4_BUILD_BENCHMARKS=OFF "-DDSV4_TEST_SKIP_LABELS=gpu;slow" \
    >/dev/null
  cmake --build --preset asan -j "${DSV4_JOBS:-$(nproc)}"
  # LeakSanitizer stays on (ASan's default); UBSan findings abort (the preset's -fno-sanitize-recover) with a stack.
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --preset asan -LE "gpu|slow" || rc=$?
fi
exit "$rc"
