#!/bin/sh
# Runs every fuzz target (or those named) for SECONDS each and prints, per
# target, the executions and the coverage libFuzzer reached.
#
#   fuzz/run.sh SECONDS [TARGET...]
#
# Builds optimised with debug assertions (overflow checks included).
# Needs nightly and cargo-fuzz (`cargo install cargo-fuzz`). The seeds in
# fuzz/corpus/<target>/ are read, never written: what libFuzzer adds goes to
# fuzz/target/work/<target>/ and is kept between runs. A crash lands in
# fuzz/artifacts/<target>/; copy it into the corpus with a regression fix,
# and `cargo test -p fuzz-props --test fuzz_corpus` replays it on stable.
set -eu
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
cd "$(dirname "$0")/.."
targets=${*:-"fen moves protocol book network records games arena_config epd"}
cargo +nightly fuzz build -O -a
# A whole session per protocol input allocates and frees a 16 MB table.
# glibc's dynamic mmap threshold rises after the first free, so the next
# calloc comes from the heap and is memset: 90 % of a short session's
# time. A fixed threshold keeps big blocks mmapped (zero pages for free).
export MALLOC_MMAP_THRESHOLD_=131072
status=0
for t in $targets; do
    work=fuzz/target/work/$t
    mkdir -p "$work"
    log=fuzz/target/work/$t.log
    # A protocol input is up to 64 lines and each starts a whole session:
    # longer inputs spread that cost over more lines.
    case $t in
        protocol) len="-max_len=2048 -len_control=0" ;;
        *) len= ;;
    esac
    # -rss_limit_mb: a whole session (hash table, book, network) per input.
    if cargo +nightly fuzz run -O -a "$t" "$work" "fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 $len \
        >"$log" 2>&1; then
        verdict=ok
    else
        verdict="FAILED (see $log)"
        status=1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    corpus=$(find "$work" -type f | wc -l)
    printf '%-9s %s: %s executions, cov %s, ft %s, corpus %s\n' \
        "$t" "$verdict" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corpus"
done
exit $status
