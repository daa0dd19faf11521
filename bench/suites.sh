#!/usr/bin/env bash
# Generates the standard workloads and runs `subgraph bench` on them, recording every run so it
# can be re-done from its command.
#
# Usage (from anywhere; paths are relative to the repository root unless absolute):
#   bench/suites.sh gen-scale S                  R-MAT graph of 2^S vertices and 16*2^S edges, 32
#                                                power-law labels, as WORK/rmat-S/data.sgb, plus 100
#                                                dense and 100 sparse queries of 8, 12 and 16 vertices
#                                                in WORK/rmat-S/queries/  (S: 20, 24 or 26; the
#                                                generator peaks near 33 bytes per edge: S=24 about
#                                                9 GiB, S=26 about 35 GiB, beyond a 24 GiB machine)
#   bench/suites.sh gen-1e8 [COUNT] [SIZES]      R-MAT graph of 2^23 vertices and 10^8 edges (same
#                                                labels) as WORK/rmat-1e8/data.sgb, plus COUNT (20)
#                                                dense and sparse queries of each of SIZES ("8 12")
#   bench/suites.sh sunluo OUT [BENCH ARGS...]   `subgraph bench` on the Sun & Luo sets (yeast, hprd,
#                                                wordnet, all query classes) into OUT/<dataset>/
#   bench/suites.sh generated NAME OUT [SIZES] [BENCH ARGS...]
#                                                `subgraph bench` on WORK/NAME/data.sgb and its queries
#                                                of the given sizes (default: all) into OUT/
#
# Every `sunluo` and `generated` run writes OUT/RUN.md: commit (and whether the tree was dirty),
# machine, date, load average at start and end, and the exact command line of this script.
# Generation logs (time, edges/s, peak memory) go to WORK/NAME/gen.log.
#
# Environment:
#   SUBGRAPH   the binary (default: $CARGO_TARGET_DIR/release/subgraph, else target/release/subgraph;
#              build it first with `cargo build --release`)
#   DATA       the Sun & Luo data (default: ../shared/data beside the repository)
#   WORK       where generated workloads go (default: bench/work, not committed)
#   COMPARE    sunluo only: an earlier sunluo run's folder; each dataset is compared with
#              COMPARE/<dataset>/results.csv (--compare)
#   BUILD_COMMIT  the commit SUBGRAPH was built from, for RUN.md (default: HEAD of this checkout,
#              with a note and a hash of the diff when the tree has uncommitted changes); to build
#              a clean one: git archive C | tar -x -C DIR && cd DIR && cargo build --release
#
# Examples (the runs of bench/results/):
#   bench/suites.sh sunluo bench/results/2026-11-21-cpu-sunluo-sets --threads 2 --limit 100000 --timeout 10
#   bench/suites.sh gen-1e8 20 "8 12"
#   bench/suites.sh generated rmat-1e8 bench/results/2026-11-21-cpu-rmat-1e8 "8 12" --threads 2 --limit 100000 --timeout 30

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
INVOCATION="bench/suites.sh $(printf '%q ' "$@")"
cd "$ROOT"
SUBGRAPH=${SUBGRAPH:-${CARGO_TARGET_DIR:-$ROOT/target}/release/subgraph}
DATA=${DATA:-$(cd "$ROOT/../shared/data" && pwd)}
WORK=${WORK:-$ROOT/bench/work}
LABELS=(--vertex-labels 32 --label-dist powerlaw:1.0)

die() { echo "suites.sh: $*" >&2; exit 1; }
[ -x "$SUBGRAPH" ] || die "no binary at $SUBGRAPH; run cargo build --release or set SUBGRAPH"

# gen_graph NAME VERTICES EDGES SEED: the data graph, timed, with its peak memory.
gen_graph() {
    local dir=$WORK/$1
    mkdir -p "$dir"
    {
        echo "# $INVOCATION"
        echo "# $(date -u +%FT%TZ) $(uptime)"
        echo "$SUBGRAPH gen graph --model rmat --vertices $2 --edges $3 ${LABELS[*]} --seed $4 --output $dir/data.sgb"
    } >"$dir/gen.log"
    local start end
    start=$(date +%s.%N)
    /usr/bin/time -f "peak RSS %M KiB, %e s wall, %U s user" \
        "$SUBGRAPH" gen graph --model rmat --vertices "$2" --edges "$3" "${LABELS[@]}" --seed "$4" \
        --output "$dir/data.sgb" 2>>"$dir/gen.log"
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" -v m="$3" \
        'BEGIN { printf "generation: %.1f s, %.2f M edges/s\n", e - s, m / (e - s) / 1e6 }' >>"$dir/gen.log"
    ls -l "$dir/data.sgb" >>"$dir/gen.log"
}

# gen_queries NAME COUNT SIZES...: dense and sparse query sets, seeded by kind and size.
gen_queries() {
    local dir=$WORK/$1 count=$2
    shift 2
    for size in "$@"; do
        for kind in dense sparse; do
            local seed=$((size * 10 + $([ "$kind" = dense ] && echo 1 || echo 2)))
            echo "$SUBGRAPH gen queries $dir/data.sgb --size $size --count $count --kind $kind --seed $seed --output $dir/queries" >>"$dir/gen.log"
            /usr/bin/time -f "  %e s, peak RSS %M KiB" "$SUBGRAPH" gen queries "$dir/data.sgb" --size "$size" \
                --count "$count" --kind "$kind" --seed "$seed" --output "$dir/queries" 2>>"$dir/gen.log"
        done
    done
}

# machine_facts: what RUN.md records about where a run happened.
machine_facts() {
    if [ -n "${BUILD_COMMIT:-}" ]; then
        echo "- commit: $BUILD_COMMIT (the binary was built from a clean export of it)"
    else
        local dirty
        dirty=$(git status --porcelain --untracked-files=no | wc -l)
        echo "- commit: $(git rev-parse HEAD)$([ "$dirty" -gt 0 ] && echo " plus uncommitted changes in $dirty tracked files (git diff hash $(git diff HEAD | sha256sum | cut -c1-16))")"
    fi
    echo "- binary: $SUBGRAPH (built $(date -u -r "$SUBGRAPH" +%FT%TZ))"
    echo "- machine: $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(nproc) cores; $(free -g | awk '/Mem:/ {print $2}') GiB memory"
}

# record OUT START_DATE START_UPTIME [GEN_LOG]: RUN.md of a finished run.
record() {
    {
        echo "# Run $(basename "$1")"
        echo
        machine_facts
        echo "- started: $2; finished: $(date -u +%FT%TZ)"
        echo "- load average at start: ${3#*load average: }"
        echo "- load average at end: $(uptime | sed 's/.*load average: //')"
        echo
        echo "Command (from the repository root; SUBGRAPH=$SUBGRAPH DATA=$DATA WORK=$WORK${COMPARE:+ COMPARE=$COMPARE}):"
        echo
        echo "    $INVOCATION"
        if [ -n "${4:-}" ]; then
            echo
            echo "Workload generation ($4):"
            echo
            sed 's/^/    /' "$4"
        fi
    } >"$1/RUN.md"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
gen-scale)
    s=${1:?scale S}
    case "$s" in 20 | 24 | 26) ;; *) die "S must be 20, 24 or 26" ;; esac
    gen_graph "rmat-$s" $((1 << s)) $((16 << s)) "$s"
    gen_queries "rmat-$s" 100 8 12 16
    ;;
gen-1e8)
    count=${1:-20}
    read -r -a sizes <<<"${2:-8 12}"
    gen_graph rmat-1e8 $((1 << 23)) 100000000 23
    gen_queries rmat-1e8 "$count" "${sizes[@]}"
    ;;
sunluo)
    out=${1:?output directory}
    shift
    for d in yeast hprd wordnet; do
        mkdir -p "$out/$d"
        started=$(date -u +%FT%TZ) up=$(uptime)
        compare=()
        [ -n "${COMPARE:-}" ] && compare=(--compare "$COMPARE/$d/results.csv")
        "$SUBGRAPH" bench "$DATA/$d/data_graph/$d.graph" "$DATA/$d/query_graph" --out "$out/$d" --label "$d${BUILD_COMMIT:+ ${BUILD_COMMIT:0:7}}" \
            "${compare[@]}" "$@" 2>"$out/$d/bench.log"
        record "$out/$d" "$started" "$up"
    done
    ;;
generated)
    name=${1:?workload name} out=${2:?output directory}
    read -r -a sizes <<<"${3:-}"
    shift 3 || shift $#
    dir=$WORK/$name
    [ -f "$dir/data.sgb" ] || die "no $dir/data.sgb; generate it first"
    queries=()
    if [ ${#sizes[@]} -eq 0 ]; then
        queries=("$dir/queries")
    else
        for s in "${sizes[@]}"; do
            mapfile -t -O ${#queries[@]} queries < <(ls "$dir"/queries/query_*_"$s"_*.graph | sort -V)
        done
    fi
    mkdir -p "$out"
    started=$(date -u +%FT%TZ) up=$(uptime)
    "$SUBGRAPH" bench "$dir/data.sgb" "${queries[@]}" --out "$out" --label "$name" "$@" 2>"$out/bench.log"
    record "$out" "$started" "$up" "$dir/gen.log"
    ;;
*)
    sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
