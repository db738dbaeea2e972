#!/usr/bin/env bash
# Rebuilds arena/data/openings.epd, openings-wide.epd and openings-deep.epd from the
# CCPD game records (CC BY 4.0, see NOTICE beside this script). Usage, from
# the workspace root:
#   arena/data/make-openings.sh [path/to/ccpd-games.iccs.tsv.xz]
# The default input is the vendored copy in data/games. The result is
# deterministic.
#
# openings.epd is the default suite: 240 well-balanced lines. Games at a
# fixed node count or depth are deterministic, so a suite of N positions
# yields only 2N different games; openings-wide.epd (760 positions, less
# strictly balanced) is for fixed-node tests that need more than 480, and
# openings-deep.epd (1000 positions, 13-16 plies) and openings-deeper.epd
# (1000 positions, 17-20 plies) for those that go on past the wide suite's
# 1,520 games and the deep suite's 2,000 (arena pool scores the runs
# together).
set -euo pipefail
cd "$(dirname "$0")/../.."
input="${1:-data/games/ccpd-games.iccs.tsv.xz}"
arena=(cargo run --quiet --release -p arena --bin arena --)
body=$(mktemp)
trap 'rm -f "$body"' EXIT

# build OUT DESCRIPTION-LINES SETTINGS...: one suite with its header.
build() {
  local out=$1 description=$2
  shift 2
  # .xz input is decompressed in-process: no xz program needed.
  "${arena[@]}" openings --input "$input" --out "$body" "$@"
  {
    printf '%s\n' "$description"
    echo "# Made by arena/data/make-openings.sh: arena openings $*"
    echo "# Opening data derived from the Chinese Chess Practical Dataset (CCPD) by"
    echo "# Yu-Han Tseng and Bo-Nian Chen,"
    echo "# https://github.com/Yvonne761/Chinese-Chess-Practical-Dataset, licensed"
    echo "# CC BY 4.0; converted and filtered. See arena/data/NOTICE."
    cat "$body"
  } > "$out"
  echo "$out: $(grep -vc '^#' "$out") positions"
}

build arena/data/openings.epd "\
# Balanced xiangqi openings for arena self-play: 6-10 plies from the start,
# one per 6-ply trunk, each reached in >= 6 master games with Red scoring
# 40-60 %, drawn lines first. c0 = the moves from the start position,
# c1 = games through the position, Red's score, draw rate." \
  --count 240 --min-plies 6 --max-plies 10 --min-games 6 --max-imbalance 0.1

build arena/data/openings-wide.epd "\
# A wider suite of xiangqi openings for long fixed-node tests: 8-12 plies
# from the start, one per 6-ply trunk, each reached in >= 3 master games with
# Red scoring 30-70 %, drawn lines first. c0 = the moves from the start
# position, c1 = games through the position, Red's score, draw rate." \
  --count 760 --min-plies 8 --max-plies 12 --min-games 3 --max-imbalance 0.2

build arena/data/openings-deep.epd "\
# Deeper xiangqi openings, to go on with a fixed-node test past
# openings-wide.epd: 13-16 plies from the start, one per 6-ply trunk, each
# reached in >= 3 master games with Red scoring 30-70 %, drawn lines first.
# c0 = the moves from the start position, c1 = games through the position,
# Red's score, draw rate." \
  --count 1000 --min-plies 13 --max-plies 16 --min-games 3 --max-imbalance 0.2

build arena/data/openings-deeper.epd "\
# The deepest xiangqi openings, to go on with a fixed-node test past
# openings-deep.epd: 17-20 plies from the start, one per 6-ply trunk, each
# reached in >= 3 master games with Red scoring 30-70 %, drawn lines first.
# c0 = the moves from the start position, c1 = games through the position,
# Red's score, draw rate." \
  --count 1000 --min-plies 17 --max-plies 20 --min-games 3 --max-imbalance 0.2
