#!/usr/bin/env bash
# Rebuilds arena/data/openings.epd from the CCPD game records (CC BY 4.0, see
# NOTICE beside this script). Usage, from the workspace root:
#   arena/data/make-openings.sh [path/to/ccpd-games.iccs.tsv.xz]
# The default input is the team's shared copy. The result is deterministic.
set -euo pipefail
cd "$(dirname "$0")/../.."
input="${1:-../shared/data/games/ccpd-games.iccs.tsv.xz}"
[ -f "$input" ] || input=/work/shared/data/games/ccpd-games.iccs.tsv.xz
settings=(--count 240 --min-plies 6 --max-plies 10 --min-games 6 --max-imbalance 0.1)
arena=(cargo run --quiet --release -p arena --bin arena --)
body=$(mktemp)
trap 'rm -f "$body"' EXIT
# .xz input is decompressed in-process: no xz program needed.
"${arena[@]}" openings --input "$input" --out "$body" "${settings[@]}"
{
  echo "# Balanced xiangqi openings for arena self-play: 6-10 plies from the start,"
  echo "# one per 6-ply trunk, each reached in >= 6 master games with Red scoring"
  echo "# 40-60 %, drawn lines first. c0 = the moves from the start position,"
  echo "# c1 = games through the position, Red's score, draw rate."
  echo "# Made by arena/data/make-openings.sh: arena openings ${settings[*]}"
  echo "# Opening data derived from the Chinese Chess Practical Dataset (CCPD) by"
  echo "# Yu-Han Tseng and Bo-Nian Chen,"
  echo "# https://github.com/Yvonne761/Chinese-Chess-Practical-Dataset, licensed"
  echo "# CC BY 4.0; converted and filtered. See arena/data/NOTICE."
  cat "$body"
} > arena/data/openings.epd
echo "arena/data/openings.epd: $(grep -vc '^#' arena/data/openings.epd) positions"
