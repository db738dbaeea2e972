#!/usr/bin/env bash
# Plays the strength ladder's meetings between skill levels (the links of
# docs/lab/strength.md, "Strength levels") with arena at 100,000 nodes a
# move, one PGN file per link, for tools/ladder/fit.py.
#
#   tools/ladder/play-links.sh CHARIOT ARENA OUT_DIR [LINK=GAMES ...]
#
# LINK is LOW-HIGH (two skills); without any, every link of the ladder is
# played with the games below, chosen so that the cheap links below skill
# 12 (1,000-18,000 nodes a move) carry most of the games: every level
# below reaches the ElephantEye scale through all of them. Levels from 12
# up play the same game again from the same opening at a fixed budget, so
# their links take openings from the deep suite past those another batch
# used (SKIP_HIGH, default 0). Games are appended: a second run adds to the
# first. Fixed nodes: the load of the machine does not change the games.
set -euo pipefail

if [ $# -lt 3 ]; then
  sed -n '2,15p' "$0" >&2
  exit 2
fi
chariot=$1
arena=$2
out=$3
shift 3
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"

links=("$@")
if [ ${#links[@]} -eq 0 ]; then
  links=(0-2=2400 2-4=2400 4-6=2400 6-8=2400 8-10=2000 10-11=1000 11-12=1000
         12-14=400 14-16=200 16-20=120)
fi

for link in "${links[@]}"; do
  pair=${link%%=*}
  games=${link#*=}
  low=${pair%%-*}
  high=${pair#*-}
  if [ "$high" -ge 12 ] && [ "$low" -ge 12 ]; then
    openings=$here/arena/data/openings-deep.epd
    skip=${SKIP_HIGH:-0}
  else
    openings=$here/arena/data/openings-wide.epd
    skip=0
  fi
  echo "$(date -u +%H:%M:%S) L$low-L$high: $games games"
  "$arena" \
    --engine name="L$low" cmd="$chariot" proto=uci "option.Skill Level=$low" option.OwnBook=false option.Hash=16 \
    --engine name="L$high" cmd="$chariot" proto=uci "option.Skill Level=$high" option.OwnBook=false option.Hash=16 \
    --nodes 100000 --concurrency 2 --games "$games" --openings "$openings" --skip-openings "$skip" \
    --resign score=1000 moves=4 --draw score=10 moves=8 after=40 \
    --pgn "$out/links-$low-$high.pgn" | tail -n 3
done
