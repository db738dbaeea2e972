#!/bin/sh
# Builds the ElephantEye perft driver beside the project and Chariot's
# perft_speed example, then runs both ROUNDS times, alternately, at DEPTH
# (every leaf made and unmade), and prints each run's own time and user CPU
# time, the medians and their ratio.
#
# Usage: tools/eleeye-perft/compare.sh ELEEYE_SRC [ROUNDS] [DEPTH]
#   ELEEYE_SRC  a checkout of github.com/xqbase/eleeye (its base/ and
#               eleeye/ directories), outside this repository
#   BUILD       where the driver is built (default: ../anchors/eleeye-perft,
#               beside the repository)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
src=$(cd "${1:?usage: compare.sh ELEEYE_SRC [ROUNDS] [DEPTH]}" && pwd)
rounds=${2:-5}
depth=${3:-5}
build=${BUILD:-$root/../anchors/eleeye-perft}
build=$(realpath -m "$build")
case "$build/" in "$root"/*) echo "compare.sh: BUILD must lie outside the repository" >&2; exit 2 ;; esac
mkdir -p "$build"
for f in base/base.h eleeye/position.cpp eleeye/pregen.cpp eleeye/genmoves.cpp; do
  [ -f "$src/$f" ] || { echo "compare.sh: $src has no $f (want an xqbase/eleeye checkout)" >&2; exit 2; }
done
# -O3 for x86-64-v2, the instruction set of Chariot's release build (-O2
# and -march=native were slower).
g++ -DNDEBUG -O3 -march=x86-64-v2 -w -I"$src" -o "$build/eleeye_perft" "$root/tools/eleeye-perft/perft.cpp" \
  "$src/eleeye/position.cpp" "$src/eleeye/pregen.cpp" "$src/eleeye/genmoves.cpp"
(cd "$root" && cargo build --release -q -p board --example perft_speed)
chariot="$root/target/release/examples/perft_speed"
out=$(mktemp)
times=$(mktemp)
trap 'rm -f "$out" "$times"' EXIT
uptime
i=1
while [ "$i" -le "$rounds" ]; do
  for who in chariot eleeye; do
    if [ "$who" = chariot ]; then
      /usr/bin/time -f "%U" -o "$times" "$chariot" "$depth" full > "$out.run"
    else
      /usr/bin/time -f "%U" -o "$times" "$build/eleeye_perft" "$depth" > "$out.run"
    fi
    wall=$(sed -E 's/.* in ([0-9.]+) s.*/\1/' "$out.run")
    leaves=$(grep -oE '= [0-9]+' "$out.run" | tr -d '= ')
    echo "$who $wall $(cat "$times") $leaves" | tee -a "$out"
  done
  i=$((i + 1))
done
rm -f "$out.run"
uptime
med() { grep "^$1 " "$out" | awk -v c="$2" '{print $c}' | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
cw=$(med chariot 2); ew=$(med eleeye 2); cu=$(med chariot 3); eu=$(med eleeye 3)
echo "median wall: chariot $cw s, eleeye $ew s, ratio $(echo "$cw $ew" | awk '{printf "%.3f", $1/$2}')"
echo "median user: chariot $cu s, eleeye $eu s, ratio $(echo "$cu $eu" | awk '{printf "%.3f", $1/$2}')"
