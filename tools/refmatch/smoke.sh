#!/usr/bin/env bash
# Smoke test for refmatch: the referee self-test, then two very short games
# of Chariot against itself judged by pyffish, then a four-game soak
# (soak.py) at 0.5+0.005. Skips (exit 0) when pyffish cannot be imported or
# installed; fails if the summary is missing or a game ended by a fault
# (illegal move, crash, missing move, hang), or if the soak saw a fault other
# than those a loaded machine causes.
#
# Uses $PYTHON if set and able to import pyffish, else a venv in
# target/refmatch-venv (created with `pip install pyffish` on first use).
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)

python=${PYTHON:-python3}
if ! "$python" -c 'import pyffish' 2>/dev/null; then
  venv=target/refmatch-venv
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import pyffish' 2>/dev/null; then
    if ! { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet pyffish; } >/dev/null 2>&1; then
      echo "refmatch smoke: skipped (pyffish cannot be installed here)"
      exit 0
    fi
  fi
  python=$venv/bin/python
fi

cargo build --release -p chariot-cli --quiet
chariot=$PWD/target/release/chariot
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$python" tools/refmatch/refmatch.py --self-test

"$python" tools/refmatch/refmatch.py \
  --engine name=chariot cmd="$chariot" proto=ucci opt.usebook=false opt.hashsize=16 \
  --tc 1+0.01 --games 2 --max-plies 120 \
  --openings arena/data/openings.epd --pgn "$out/smoke.pgn" | tee "$out/summary.txt"

grep -q '^== refmatch summary: 2 games$' "$out/summary.txt" || { echo "refmatch smoke: no summary" >&2; exit 1; }
grep -q '^chariot vs chariot: W [0-9]* D [0-9]* L [0-9]*' "$out/summary.txt" || { echo "refmatch smoke: no result line" >&2; exit 1; }
if grep -E '^terminations:.*(illegal move|crash|no move|hang)' "$out/summary.txt"; then
  echo "refmatch smoke: a game ended by an engine fault" >&2
  exit 1
fi
[ "$(grep -c '^\[Result ' "$out/smoke.pgn")" = 2 ] || { echo "refmatch smoke: PGN lacks 2 games" >&2; exit 1; }
# The soak: faults that only a starved CPU causes (time forfeits, slow
# answers) are reported but do not fail CI.
"$python" tools/refmatch/soak.py --engine "$chariot" --games 4 --tc 0.5+0.005 --max-plies 200 --quiet \
  --tolerate "time forfeit" --tolerate "slow readyok" --tolerate "slow stop" --pgn "$out/soak.pgn" | tee "$out/soak.txt"
grep -q '^== soak: 4 games ' "$out/soak.txt" || { echo "refmatch smoke: no soak summary" >&2; exit 1; }
echo "refmatch smoke: ok in $(($(date +%s) - start)) s"
