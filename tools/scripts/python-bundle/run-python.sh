#!/usr/bin/env bash
# (In a bundle made by tools/scripts/python-bundle.sh.) Builds the binding (build-python.sh), then runs the
# Python API's pytest suite, the torch file included, with PYTHON; where nvidia-smi sees a GPU the CUDA tests
# must run (DSV4_EXPECT_CUDA=1). Log: DEST/python-logs/pytest.log. Exit: pytest's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export PYTHON=${PYTHON:-/opt/torch/.venv/bin/python3}
"$here/build-python.sh"
logs=$here/python-logs
mkdir -p "$logs"
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then export DSV4_EXPECT_CUDA=1; fi
export PYTHONPATH=$here/site DSV4CHECK_CLI=$here/bin/dsv4check LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONDONTWRITEBYTECODE=1
cd "$here/site"  # the bundle's dsv4check/ sources (no _core) must not shadow the built package
set +e
"$PYTHON" "$here/tests/python/run_pytest.py" -p no:cacheprovider -v -rs "$here/tests/python" 2>&1 | tee "$logs/pytest.log"
rc=${PIPESTATUS[0]}
echo "run-python: pytest exit $rc; log $logs/pytest.log"
exit "$rc"
