#!/usr/bin/env bash
# The Python package's CI step (.ci/run): a fresh virtual environment,
# the package installed from ./python exactly as docs/python.md tells a
# user to, the test tools from PyPI, then pytest. pytest's exit 5 (no tests
# collected) fails like any other non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${CARGO_TARGET_DIR:-target}/python-ci-venv"
rm -rf "$venv"
python3 -m venv "$venv"
venv=$(cd "$venv" && pwd)
"$venv/bin/pip" install --quiet --disable-pip-version-check --upgrade pip
"$venv/bin/pip" install --quiet --disable-pip-version-check ./python
"$venv/bin/pip" install --quiet --disable-pip-version-check pytest hypothesis pyffish
cd python
"$venv/bin/python" -c "import chariot; print('chariot', chariot.__version__, 'imported from', chariot.__file__)"
status=0
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests || status=$?
if [ "$status" -eq 5 ]; then
  echo "python: pytest collected no tests" >&2
fi
exit "$status"
