#!/usr/bin/env bash
# Compiles one HIP kernel translation unit to a device-only AMDGPU code object for one arch and writes, beside
# it, the code object's notes (llvm-readelf --notes: the AMDGPU metadata with LDS, VGPRs, SGPRs, scratch, spills)
# and the compiler's resource-usage remarks (its own occupancy figure, used to cross-check dsv4check's estimate).
# The depfile is asked of the device compilation itself (-Xclang -dependency-file): clang >= 20 drops -MD/-MF for
# --offload-device-only.
# Usage: compile-device.sh <clang++> <llvm-readelf> <arch> <device-lib-dir> <source> <out-prefix> [extra flags...]
# Produces <out-prefix>.co, <out-prefix>.notes.txt, <out-prefix>.remarks.txt, <out-prefix>.d (depfile).
set -euo pipefail
clang="$1" readelf="$2" arch="$3" devlibs="$4" src="$5" out="$6"
shift 6
mkdir -p "$(dirname "$out")"
remarks="$out.remarks.txt"
if ! "$clang" -x hip -std=c++20 --offload-arch="$arch" --offload-device-only --no-gpu-bundle-output \
      --rocm-path=/usr --rocm-device-lib-path="$devlibs" -O3 -DDSV4_BACKEND_HIP \
      -Rpass-analysis=kernel-resource-usage -Xclang -dependency-file -Xclang "$out.d" -Xclang -MT -Xclang "$out.co" \
      "$@" -c "$src" -o "$out.co" 2>"$remarks"; then
  grep -v 'remark:' "$remarks" | grep -v '^ *[0-9]* | \|^ *| *^' >&2 || true
  echo "compile-device: $src failed for $arch (full compiler output: $remarks)" >&2
  exit 1
fi
"$readelf" --notes "$out.co" >"$out.notes.txt"
