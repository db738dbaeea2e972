#!/usr/bin/env bash
# The cluster driver's checks: ruff, then test_cluster.py (both jobs end to
# end on local Dask clusters of two workers bound to 127.0.0.1, a worker
# killed during each, a worker refused for a different bench) and
# test_spsa.py (SPSA's formulas and state; tunes of a synthetic objective
# through a fake engine and arena: one reaches the optimum, one loses a
# worker, one is interrupted and resumed).
#
# Uses $PYTHON if set and able to import distributed, else a venv in
# target/cluster-venv with tools/cluster/requirements.txt installed. Skips
# (exit 0) with a message only when Python 3.11 or the requirements cannot
# be had.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)

python=${PYTHON:-python3}
if ! "$python" -c 'import distributed, cryptography, pytest' 2>/dev/null; then
  if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "cluster smoke: skipped (needs Python 3.11 or newer)"
    exit 0
  fi
  venv=target/cluster-venv
  if ! { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } >/dev/null 2>&1 ||
    ! "$venv/bin/python" -m pip install --quiet -r tools/cluster/requirements.txt >/dev/null 2>&1; then
    echo "cluster smoke: skipped (pip cannot install tools/cluster/requirements.txt here)"
    exit 0
  fi
  python=$venv/bin/python
fi

cargo build --release -p chariot-cli -p arena --quiet
"$python" -m ruff check tools/cluster
"$python" -m ruff format --check tools/cluster
"$python" -m pytest -q -p no:cacheprovider tools/cluster/test_cluster.py tools/cluster/test_spsa.py
echo "cluster smoke: ok in $(($(date +%s) - start)) s"
