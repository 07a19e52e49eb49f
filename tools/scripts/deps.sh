#!/usr/bin/env bash
# Installs the Debian packages dsv4check needs, only those missing. Needs root (or sudo) when
# something is missing; prints what it installs. Usage: tools/scripts/deps.sh [--with-amd]
set -euo pipefail
pkgs=(cmake ninja-build g++ make pkg-config
      libeigen3-dev libopenblas-dev libboost-context-dev libcli11-dev libfmt-dev nlohmann-json3-dev libstb-dev
      libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
      pybind11-dev python3-dev python3-numpy python3-pytest  # the Python API (python/, tests/python)
      clang-22 llvm-22-dev)  # hipsim: clang++-22 + the LLVM 22 headers for its pass plugin
if [[ "${1:-}" == "--with-amd" ]]; then
  # clang-22 etc. come from bookworm-security (1:22.1.8; knows gfx90a, gfx942, gfx950). No hipcc: Debian's wraps
  # clang-15 (no gfx942).
  pkgs+=(clang-22 llvm-22 lld-22 rocm-device-libs libamdhip64-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "deps: all ${#pkgs[@]} Debian packages present"
  exit 0
fi
echo "deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
