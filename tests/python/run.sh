#!/usr/bin/env bash
# Drives target/release/chariot with the independent Python `cchess`
# client from PyPI: a whole self-play game at shallow depth plus raw-pipe
# checks of what cchess-style GUIs send (CRLF, UCI-shape setoption after
# ucci, two-field FENs, stop after every bestmove).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
target="${CARGO_TARGET_DIR:-$root/target}"
engine="$target/release/chariot"
if [ ! -x "$engine" ]; then
  cargo build --release -p chariot-cli --quiet
fi
venv="$target/pyenv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import cchess" 2>/dev/null; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check "cchess==1.25.5"
fi
exec "$venv/bin/python" "$root/tests/python/selfplay.py" "$engine"
