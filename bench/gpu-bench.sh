#!/usr/bin/env bash
# GPU against CPU benchmarks on the GPU machine (16 cores, one H200), in three steps.
#   bench/gpu-bench.sh build   here: runs scripts/gpu-suite.sh build, then adds the Sun & Luo
#       data graphs and query sets (../shared/data/{yeast,hprd,wordnet}) to .device-bin.
#   bench/gpu-bench.sh sets    there: for each of yeast, hprd, wordnet and each class of
#       SETS_CLASSES, the first SETS_QUERIES queries, `subgraph match --device gpu` and
#       `--device cpu` (all cores), counting every embedding (no limit), SETS_TIMEOUT seconds
#       per query; JSON reports in $OUT/sets-*.jsonl.
#   bench/gpu-bench.sh large   there: generates an R-MAT graph (LARGE_VERTICES vertices,
#       LARGE_EDGES edges, 32 power-law vertex labels), extracts LARGE_QUERIES dense and sparse
#       queries of 8 and 12 vertices, and runs them on the GPU, on the CPU (all cores) and, for
#       the GPU, in each ablation setting; JSON reports and timings in $OUT/large-*.
#   bench/gpu-bench.sh scaling there: the CPU engine on 1, 2, 4, ... threads (scripts/cpu-scaling.sh)
#       over hard yeast queries; $OUT/scaling.csv.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.device-bin"
out=${OUT:-/tmp/gpu-bench}
mkdir -p "$out"
sg="$bin/subgraph"

case "${1:-}" in
build)
    "$root/scripts/gpu-suite.sh" build || exit 1
    for d in yeast hprd wordnet; do
        mkdir -p "$bin/sets/$d"
        cp "$root/../shared/data/$d/data_graph/$d.graph" "$bin/sets/$d/"
        cp -r "$root/../shared/data/$d/query_graph" "$bin/sets/$d/queries"
    done
    cp "$root/scripts/cpu-scaling.sh" "$bin/"
    for q in sparse_8_41 dense_16_162 dense_16_48 sparse_16_33; do
        cp "$root/../shared/data/yeast/query_graph/query_$q.graph" "$bin/sets/scaling-$q.graph"
    done
    du -sh "$bin"
    ;;
sets)
    for d in yeast hprd wordnet; do
        for c in ${SETS_CLASSES:-dense_8 sparse_8 dense_16 sparse_16}; do
            qs=$(ls "$bin/sets/$d/queries"/query_${c}_*.graph | sort -V | head -n "${SETS_QUERIES:-20}")
            for dev in gpu cpu; do
                # shellcheck disable=SC2086
                "$sg" match -q --format json --device "$dev" --timeout "${SETS_TIMEOUT:-3}" \
                    "$bin/sets/$d/$d.graph" $qs >"$out/sets-$d-$c-$dev.jsonl"
            done
        done
    done
    ;;
large)
    g=/tmp/rmat.sgb
    /usr/bin/time -v "$sg" gen graph --model rmat --vertices "${LARGE_VERTICES:-8388608}" \
        --edges "${LARGE_EDGES:-100000000}" --vertex-labels 32 --label-dist powerlaw:1.0 --seed 7 \
        --output "$g" 2>"$out/large-gen.txt"
    "$sg" info --format json "$g" >"$out/large-info.json"
    for spec in dense:8 sparse:8 dense:12 sparse:12; do
        "$sg" gen queries "$g" --size "${spec#*:}" --count "${LARGE_QUERIES:-10}" --kind "${spec%:*}" \
            --seed 3 --output "/tmp/large-q/${spec%:*}-${spec#*:}"
    done
    qs=$(find /tmp/large-q -name '*.graph' | sort -V)
    t=${LARGE_TIMEOUT:-20}
    # shellcheck disable=SC2086
    "$sg" match -q --format json --device gpu --timeout "$t" "$g" $qs >"$out/large-gpu.jsonl"
    # shellcheck disable=SC2086
    "$sg" match -q --format json --device cpu --timeout "$t" "$g" $qs >"$out/large-cpu.jsonl"
    for ab in "--gpu-structure csr" "--gpu-output two-step" "--gpu-write-cache off" "--gpu-load-balance off"; do
        # shellcheck disable=SC2086
        "$sg" match -q --format json --device gpu --timeout "$t" $ab "$g" $qs \
            >"$out/large-gpu$(tr -d ' -' <<<"$ab").jsonl"
    done
    ;;
scaling)
    "$bin/cpu-scaling.sh" "$sg" "$bin/sets/yeast/yeast.graph" "$bin"/sets/scaling-*.graph | tee "$out/scaling.csv"
    ;;
*)
    echo "usage: $0 build|sets|large|scaling" >&2
    exit 2
    ;;
esac
