#!/usr/bin/env bash
# Packs what the Python API's pytest suite needs on a machine with no build tree and none of our Debian -dev
# packages (e.g. the H200 machine: Ubuntu 24.04, a pip venv with torch, numpy, pybind11 and pytest; g++):
#   lib/        libdsv4check_pycore.so (built here: registry, references, oracle, `verify`'s judgement) and the
#               shared libraries it and dsv4check load that a plain Ubuntu lacks (fmt, boost, stb, gomp, OpenBLAS
#               with its gfortran runtime)
#   bin/        dsv4check (sim build), for the tests that compare with `dsv4check verify`
#   include/    the two headers the binding needs (python/core/bridge.hpp, python/binding/dlpack_abi.hpp)
#   src/        the binding's source (python/binding/module.cpp)
#   dsv4check/  the package's Python files;  tests/python/  the pytest suite
#   build-python.sh  compiles the binding there against that Python's headers and its pip pybind11 into site/
#   run-python.sh    builds, then runs the suite (torch tests included) and writes DEST/python-logs/pytest.log
#
#   tools/scripts/python-bundle.sh DEST        (BUILD=<dir> overrides build/default, which it builds as needed)
#   then, there:  DEST/run-python.sh            (PYTHON=... overrides /opt/torch/.venv/bin/python3)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build/default}
dest=${1:?usage: python-bundle.sh DEST}
jobs=${JOBS:-2}

[ -f "$build/CMakeCache.txt" ] || cmake --preset default -S "$root" >/dev/null
cmake --build "$build" -j"$jobs" --target dsv4check_pycore dsv4check

rm -rf "$dest"
mkdir -p "$dest"/{lib,bin,include/python/core,include/python/binding,src,dsv4check,tests/python}
cp "$build/python/dsv4check/libdsv4check_pycore.so" "$dest/lib/"
cp "$build/tools/dsv4check" "$dest/bin/"
for f in "$dest/lib/libdsv4check_pycore.so" "$dest/bin/dsv4check"; do
  ldd "$f" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libfmt*|libgomp*|libboost*|libstb*|libopenblas*|libblas*|libcblas*|liblapack*|libgfortran*|libquadmath*)
        cp -nL "$lib" "$dest/lib/" ;;
    esac
  done
done
strip --strip-unneeded "$dest"/lib/*.so* "$dest/bin/dsv4check"
cp "$root/python/core/bridge.hpp" "$dest/include/python/core/"
cp "$root/python/binding/dlpack_abi.hpp" "$dest/include/python/binding/"
cp "$root/python/binding/module.cpp" "$dest/src/"
cp "$root"/python/dsv4check/*.py "$dest/dsv4check/"
cp "$root"/tests/python/*.py "$dest/tests/python/"
cp "$root"/tools/scripts/python-bundle/{build-python.sh,run-python.sh} "$dest/"
chmod +x "$dest"/*.sh
du -sh "$dest"
