#!/usr/bin/env bash
# Runs a folder made by tools/scripts/gpu-bundle.sh on a machine with an NVIDIA GPU: every test program (gtest,
# one log each), `dsv4check check` on the cuda backend, every kernel benchmark, and the PyTorch side-by-side
# scripts when python3 has torch. Prints one summary line per program; exit 1 when any test program failed.
# Logs go to LOGDIR; when $OUT is set (the device tool), also packed into $OUT/gpu-logs.tgz with summary.txt.
#   run-gpu.sh [LOGDIR]   (default: ./gpu-logs beside this script)
#   ONLY="test_topk_kernel bench_topk" run-gpu.sh   runs just those programs
#   PARTS="tests check" run-gpu.sh                  runs only those parts (tests, check, bench; default all three)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
logs=${1:-$here/gpu-logs}
mkdir -p "$logs"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
wanted() { [ -z "${ONLY:-}" ] || grep -qw "$1" <<<"$ONLY"; }
part() { grep -qw "$1" <<<"${PARTS:-tests check bench}"; }
failed=0
summary="$logs/summary.txt"
: >"$summary"
# With $OUT (the device tool), the logs are re-packed after every program, so a run cut short keeps what finished.
pack() {
  [ -n "${OUT:-}" ] || return 0
  tar czf "$OUT/gpu-logs.tgz" -C "$(dirname "$logs")" "$(basename "$logs")"
  cp "$summary" "$OUT/summary.txt"
}
for exe in "$here"/test_*; do
  name=$(basename "$exe")
  part tests && wanted "$name" || continue
  start=$(date +%s)
  timeout 540 "$exe" --gtest_brief=1 >"$logs/$name.log" 2>&1
  rc=$?
  line="$name rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$logs/$name.log" | tr '\n' ' ') ($(( $(date +%s) - start )) s)"
  echo "$line" | tee -a "$summary"
  [ $rc -eq 0 ] || { failed=1; grep -E 'Failure|FAILED|repro' "$logs/$name.log" | head -20; }
  pack
done
if part check && wanted dsv4check; then
  "$here/dsv4check" check >"$logs/check.log" 2>&1
  echo "dsv4check check rc=$?" | tee -a "$summary"
  cat "$logs/check.log"
  pack
fi
for exe in "$here"/bench_*; do
  name=$(basename "$exe")
  part bench && wanted "$name" || continue
  case "$name" in
    *.py) python3 -c 'import torch' 2>/dev/null || continue
          timeout 300 python3 "$exe" >"$logs/$name.log" 2>&1 ;;
    *) timeout 300 "$exe" >"$logs/$name.log" 2>&1 ;;
  esac
  echo "$name rc=$?" | tee -a "$summary"
  pack
done
pack
exit $failed
