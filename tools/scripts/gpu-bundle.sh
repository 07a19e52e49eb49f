#!/usr/bin/env bash
# Builds the cuda backend (nvcc, sm_90a: wgmma needs the arch-specific target; static cudart) and packs what a GPU run needs into one folder that can be
# carried to a machine with an NVIDIA GPU and no build tree: the kernel and stress test executables (tests/kernels,
# tests/stress), the kernel benchmarks (bench/kernels, with their PyTorch side-by-side scripts), dsv4check, the
# shared libraries they load, and run-gpu.sh, which runs them all and writes one log per program.
#
#   tools/scripts/gpu-bundle.sh [DEST]        (default DEST: .dev; BUILD=<dir> overrides build-cuda)
#   then, on the GPU machine:  DEST/run-gpu.sh [LOGDIR]   (default LOGDIR: DEST/gpu-logs)
# PACK=1 packs DEST into DEST.tar.xz instead (every program carries all kernels' device code: ~280 MB unpacked,
# ~15 MB packed); unpack there with `tar xJf` or `python3 -c "import tarfile; tarfile.open(F).extractall()"`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build-cuda}
dest=${1:-$root/.dev}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
jobs=${JOBS:-2}

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDSV4_BACKEND=cuda \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90a -DDSV4_AMD_COMPILE_CHECK=OFF >/dev/null

# Test targets declared under tests/kernels (with tests/kernels/nvidia/*) and tests/stress that exist in this (cuda)
# configuration (the port's tests are declared as dsv4_port_test(<name> ...): target test_port_<name>).
lists=$(find "$root"/tests/kernels -name CMakeLists.txt; echo "$root"/tests/stress/CMakeLists.txt)
declared=$( (grep -ho 'dsv4_add_gtest([A-Za-z0-9_]*' $lists | sed 's/dsv4_add_gtest(//'
             grep -ho 'dsv4_port_test([A-Za-z0-9_]*' $lists | sed 's/dsv4_port_test(/test_port_/') | sort -u)
available=$(cmake --build "$build" --target help | sed -n 's/^\([A-Za-z0-9_]*\): .*/\1/p')
tests=()
for t in $declared; do grep -qx "$t" <<<"$available" && tests+=("$t"); done
benches=""
for b in $(grep -x 'bench_[A-Za-z0-9_]*' <<<"$available" || true); do
  # kernel benchmarks only (bench/kernels and bench/kernels/nvidia, not bench/reference)
  [ -f "$root/bench/kernels/$b.cpp" ] || [ -f "$root/bench/kernels/nvidia/$b.cpp" ] && benches="$benches $b"
done
echo "gpu-bundle: building ${#tests[@]} test programs, $(wc -w <<<"$benches") benchmarks and dsv4check in $build"
cmake --build "$build" -j"$jobs" --target "${tests[@]}" $benches dsv4check

rm -rf "$dest"
mkdir -p "$dest/lib"
for t in "${tests[@]}" $benches dsv4check; do
  exe=$(find "$build" -type f -name "$t" -perm -u+x | head -1)
  [ -n "$exe" ] || { echo "gpu-bundle: no executable for target $t" >&2; exit 1; }
  cp "$exe" "$dest/"
done
cp "$root"/bench/kernels/*.py "$root"/bench/kernels/nvidia/*.py "$dest/" 2>/dev/null || true
# Shared libraries that are not part of a plain Ubuntu/driver install (cudart is static).
for exe in "$dest"/*; do
  [ -x "$exe" ] && [ -f "$exe" ] || continue
  { ldd "$exe" 2>/dev/null || true; } | awk '/=> \// {print $3}' | while read -r lib; do  # scripts: no libraries
    case "$(basename "$lib")" in
      libfmt*|libgomp*|libboost*|libcudart*|libstb*) cp -n "$lib" "$dest/lib/" ;;
    esac
  done
done
cp "$root/tools/scripts/run-gpu.sh" "$dest/"
strip "$dest"/test_* "$dest"/bench_* "$dest"/dsv4check 2>/dev/null || true
du -sh "$dest"
if [ "${PACK:-0}" = 1 ]; then
  # -9: its 64 MiB dictionary spans the programs, whose device code repeats (~14 MB instead of ~70 MB at -6)
  tar cf - -C "$(dirname "$dest")" "$(basename "$dest")" | xz -T"$jobs" -9 >"$dest.tar.xz"
  rm -rf "$dest"
  ls -la "$dest.tar.xz"
fi
