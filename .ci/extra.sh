#!/usr/bin/env bash
# Checks beyond .ci/run's fixed list; .ci/run calls this file when it is
# executable.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== documentation citations and links"
.ci/check-doc-links.sh

echo "== the strength ladder's fit (tools/ladder) on hand-made games"
python3 tools/ladder/test_fit.py

echo "== C library from Python ctypes (the release build's libchariot)"
python3 ffi/tests/python/test_ctypes.py

echo "== cluster driver: datagen, SPRT and SPSA on a local Dask cluster (installs tools/cluster/requirements.txt)"
tools/cluster/smoke.sh
