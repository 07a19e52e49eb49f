#!/usr/bin/env bash
# (In a bundle made by tools/scripts/python-bundle.sh.) Compiles the binding against PYTHON's headers and its
# pybind11 (pip's, or PYBIND11_INCLUDE) and assembles the importable package in DEST/site: dsv4check/ with
# _core<ext>, libdsv4check_pycore.so and the libraries it loads (rpath $ORIGIN), plus the dist-info that
# registers the pytest plugin.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-/opt/torch/.venv/bin/python3}
cxx=${CXX:-g++}
[ -x "$py" ] || { echo "build-python: no Python at $py (set PYTHON)" >&2; exit 2; }
py_inc=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
[ -f "$py_inc/Python.h" ] || { echo "build-python: $py has no headers ($py_inc/Python.h missing)" >&2; exit 2; }
pb_inc=${PYBIND11_INCLUDE:-$("$py" -c "import pybind11; print(pybind11.get_include())" 2>/dev/null || true)}
[ -n "$pb_inc" ] && [ -f "$pb_inc/pybind11/pybind11.h" ] ||
  { echo "build-python: no pybind11 for $py (pip install pybind11, or set PYBIND11_INCLUDE)" >&2; exit 2; }
ext=$("$py" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
site=$here/site
rm -rf "$site"
mkdir -p "$site/dsv4check" "$site/dsv4check-0.1.0.dist-info"
cp "$here"/dsv4check/*.py "$here"/lib/*.so* "$site/dsv4check/"
"$cxx" -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -I"$here/include" -I"$py_inc" -I"$pb_inc" \
  "$here/src/module.cpp" -L"$site/dsv4check" -ldsv4check_pycore -Wl,-rpath,'$ORIGIN' -o "$site/dsv4check/_core$ext"
printf 'Metadata-Version: 2.1\nName: dsv4check\nVersion: 0.1.0\n' >"$site/dsv4check-0.1.0.dist-info/METADATA"
printf '[pytest11]\ndsv4check = dsv4check.pytest_plugin\n' >"$site/dsv4check-0.1.0.dist-info/entry_points.txt"
# (from $site: the bundle's own dsv4check/ sources, without _core, must not shadow the built package)
cd "$site" && PYTHONPATH=$site "$py" -c "import dsv4check; print('build-python: dsv4check with', len(dsv4check.ops()), 'ops for', __import__('sys').version.split()[0])"
