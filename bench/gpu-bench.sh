#!/usr/bin/env bash
# GPU against CPU benchmarks on the GPU machine (16 cores, one H200), in three steps.
#   bench/gpu-bench.sh build   here: runs scripts/gpu-suite.sh build, then adds the Sun & Luo
#       data graphs and query sets (../shared/data/{yeast,hprd,wordnet}) to .device-bin.
#   bench/gpu-bench.sh sets    there: for each of yeast, hprd, wordnet and each class of
#       SETS_CLASSES, the first SETS_QUERIES queries, `subgraph match --device gpu --gpu-filter
#       refined` (the device filters), `--gpu-filter host` and `--device cpu` (all cores),
#       counting every embedding (or SETS_LIMIT), SETS_TIMEOUT seconds per query (SETS_DEVICES picks
#       among gpu, gpu-host, gpu-default (the GPU with its default filter), gpu-gpsm (GpSM's
#       strategy), gpu-fsig (FSIG's strategy), gpu-fsig-paper and gpu-gsi-paper (as
#       fsig-paper and gsi-paper of `heavy`), gpu-aux (FSIG's A), gpu-pcsr (PCSR only), cpu and auto, the per-query choice; SETS_CLASSES=all takes every
#       class of each set); JSON reports in
#       $OUT/sets-*.jsonl.
#   bench/gpu-bench.sh g3      there: generates G3 (../shared/bench/bigraph_gen.py, carried as
#       $bin/bigraph_gen.py; the graph gMatch and EGSM were timed on) with its 16 queries, and
#       runs them on the GPU (refined device filter), the GPU with the host filter, the CPU (all
#       cores) and the GPU ablation chain (below); $OUT/g3-*.jsonl.
#   bench/gpu-bench.sh heavy   there: generates G1 (bigraph_gen.py, 32 power-law labels; the
#       graph of the issue "Heavy queries", on which gMatch counted dense_8_1 in 9.4 s) with its
#       10 queries, and counts every embedding within HEAVY_TIMEOUT s (default 30) per query in
#       each of HEAVY_VARIANTS (default: gpu cpu): gpu (the defaults: planner, symmetry
#       breaking, counted tails, depth-first counting), gpu-nosym (--symmetry off), gpu-bfs
#       (--gpu-dfs off), gpu-nosteal (--gpu-dfs-steal off), gpu2 (--gpus 2: two GPUs), gpu-old (what ran before the planner: --order gsi --symmetry off
#       --tail off --gpu-dfs off), cpu (all cores), gpu-enum and cpu-enum (--spasm off: every
#       count enumerated), gpsm (--gpu-strategy gpsm: GpSM's filter and edge join), gpsm-r0
#       (GpSM without its refinement rounds), fsig (--gpu-strategy fsig: FSIG's pipeline),
#       fsig-nopark (without its host spill), fsig-paper (FSIG without symmetry breaking),
#       gsi-paper (GSI as its paper has it: signature filter, PCSR, GSI's order, breadth first,
#       no symmetry breaking, no spasm, no spill), gpu-aux
#       (--gpu-structure aux: FSIG's A), gpu-pcsr (--gpu-structure pcsr), auto (--device auto: the cheaper by the planner's estimate, per
#       query); $OUT/heavy-<variant>.jsonl. HEAVY_FLAGS adds flags to every run (e.g.
#       --gpu-memory 8G), here and in g3-variants.
#   bench/gpu-bench.sh heavy-set there: the enumeration-bound set (bench/queries/heavy: yeast,
#       hprd, wordnet, rmat16k) counted in full in each of HEAVY_VARIANTS (default: gpu gpu-nosym
#       cpu) within HEAVY_TIMEOUT s per query, with HEAVY_FLAGS; $OUT/hv-<graph>-<variant>.jsonl.
#   bench/gpu-bench.sh g1-graph, g3-graph there: only generate G1 or G3 (as above) in /tmp.
#   bench/gpu-bench.sh g3-variants there: G3's 16 queries (generated as for g3) counted in
#       each of HEAVY_VARIANTS within HEAVY_TIMEOUT s per query; $OUT/g3h-<variant>.jsonl.
#   bench/gpu-bench.sh large   there: generates an R-MAT graph (LARGE_VERTICES vertices,
#       LARGE_EDGES edges, LARGE_LABELS vertex labels distributed as LARGE_LABEL_DIST, default
#       powerlaw:1.0), extracts LARGE_QUERIES dense
#       and sparse queries of 8 and 12 vertices, and runs them on the GPU (refined device filter),
#       the GPU with the host filter and the CPU (all cores; LARGE_DEVICES picks among gpu, gpu-host,
#       gpu2 (two GPUs) and cpu), stopping at 10^5 embeddings (Sun &
#       Luo's protocol) and counting every embedding (LARGE_MODES="limit full" picks), each
#       within LARGE_TIMEOUT s; $OUT/large-<labels>-<device>-<mode>.jsonl. With LARGE_CHAIN=1,
#       also the ablation chain under the 10^5 limit; $OUT/large-<labels>-limit-chain<k>.jsonl.
#   Ablation chain (GSI's tables: each technique added to the one before): CSR + two-step +
#       no write cache + no load balancing, then PCSR, Prealloc-Combine, write cache, load
#       balancing with GSI's thresholds, then with the cost model (the default);
#       $OUT/<name>-chain<k>.jsonl.
#   bench/gpu-bench.sh hubs    there: a hub-heavy workload for load balancing: an R-MAT graph
#       (HUBS_VERTICES, HUBS_EDGES, HUBS_LABELS = 16 power-law labels; its hubs' slices of one
#       label run to thousands) with HUBS_QUERIES GSI-style queries each of 3 vertices and 3
#       edges, 4 and 5, 5 and 7 (denser ones: sparse queries on hubs have 10^11 embeddings and
#       more), counted in full within HUBS_TIMEOUT s on the GPU with load balancing off, with
#       GSI's thresholds, with the cost model (on) and with SGSI's histogram model, and on the
#       CPU; $OUT/hubs-*.jsonl.
#   bench/gpu-bench.sh profile there: Nsight Compute metrics (time, DRAM bytes, global store
#       and load sectors and requests, occupancy) of every join_rows and join_link launch of G3's
#       PROFILE_QUERY (sparse_12_4) under two-step, Prealloc-Combine, and Prealloc-Combine
#       without the write cache; $OUT/profile-<scheme>[-wcoff].csv.
#   bench/gpu-bench.sh scaling there: the CPU engine on 1, 2, 4, ... threads (scripts/cpu-scaling.sh)
#       over hard yeast queries; $OUT/scaling.csv. `scaling-heavy`: the same over the slowest
#       queries of bench/queries/heavy (SCALING_HEAVY); $OUT/scaling-heavy.csv.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.device-bin"
out=${OUT:-/tmp/gpu-bench}
mkdir -p "$out"
sg="$bin/subgraph"

# FSIG and GSI as their papers have them: no symmetry breaking; GSI with its signature filter,
# PCSR, its order, breadth first throughout, no spasm and no host spill.
FSIG_PAPER="--gpu-strategy fsig --symmetry off"
GSI_PAPER="--gpu-filter signature --gpu-structure pcsr --order gsi --symmetry off --gpu-dfs off --spasm off --gpu-park off"

# gpu_filter VARIANT: the filter flag of a run variant (gpu: the refined device filter; gpu-host:
# the CPU's filter; cpu: none).
gpu_filter() {
    case "$1" in
    gpu) echo --gpu-filter refined ;;
    gpu-host) echo --gpu-filter host ;;
    gpu2) echo --gpu-filter refined --gpus 2 ;;
    gpu-gpsm) echo --gpu-strategy gpsm ;;
    gpu-fsig) echo --gpu-strategy fsig ;;
    gpu-fsig-paper) echo "$FSIG_PAPER" ;;
    gpu-gsi-paper) echo "$GSI_PAPER" ;;
    gpu-aux) echo --gpu-structure aux ;;
    gpu-pcsr) echo --gpu-structure pcsr ;;
    esac
}

# chain NAME GRAPH TIMEOUT QUERIES...: the ablation chain on the GPU (refined device filter).
chain() {
    local name=$1 g=$2 t=$3
    shift 3
    local steps=("--gpu-structure csr --gpu-output two-step --gpu-write-cache off --gpu-load-balance off"
        "--gpu-structure pcsr --gpu-output two-step --gpu-write-cache off --gpu-load-balance off"
        "--gpu-structure pcsr --gpu-output prealloc-combine --gpu-write-cache off --gpu-load-balance off"
        "--gpu-structure pcsr --gpu-output prealloc-combine --gpu-write-cache on --gpu-load-balance off"
        "--gpu-structure pcsr --gpu-output prealloc-combine --gpu-write-cache on --gpu-load-balance gsi"
        "--gpu-structure pcsr --gpu-output prealloc-combine --gpu-write-cache on --gpu-load-balance on")
    for k in 0 1 2 3 4 5; do
        # shellcheck disable=SC2086
        "$sg" match -q --format json --device gpu --gpu-filter refined --timeout "$t" ${steps[$k]} ${CHAIN_FLAGS:-} "$g" "$@" \
            >"$out/$name-chain$k.jsonl"
    done
}

# g3_graph: G3 and its queries in /tmp (G3.sgb, G3_q/), generated unless present.
g3_graph() {
    [ -f /tmp/G3.sgb ] && return
    ( cd /tmp && /usr/bin/time -v python3 "$bin/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
        --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
        sparse:12:4 ) >"$out/g3-gen.txt" 2>&1
    sha256sum /tmp/G3.graph >>"$out/g3-gen.txt"
    "$sg" convert /tmp/G3.graph /tmp/G3.sgb
}

# g1_graph: G1 and its queries in /tmp (G1.sgb, G1_q/), generated unless present.
g1_graph() {
    [ -f /tmp/G1.sgb ] && return
    ( cd /tmp && /usr/bin/time -v python3 "$bin/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
        --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) \
        >"$out/g1-gen.txt" 2>&1
    sha256sum /tmp/G1.graph >>"$out/g1-gen.txt"
    "$sg" convert /tmp/G1.graph /tmp/G1.sgb
}

# variant_flags VARIANT: the flags of a heavy-query run variant (see `heavy`).
variant_flags() {
    case "$1" in
    gpu) echo --device gpu ;;
    gpu-nosym) echo --device gpu --symmetry off ;;
    gpu2) echo --device gpu --gpus 2 ;;
    gpu-bfs) echo --device gpu --gpu-dfs off ;;
    gpu-old) echo --device gpu --order gsi --symmetry off --tail off --gpu-dfs off ;;
    gpu-enum) echo --device gpu --spasm off ;;
    gpu-nosteal) echo --device gpu --gpu-dfs-steal off ;;
    gpsm) echo --device gpu --gpu-strategy gpsm ;;
    gpsm-r0) echo --device gpu --gpu-strategy gpsm --gpsm-rounds 0 ;;
    fsig) echo --device gpu --gpu-strategy fsig ;;
    fsig-nopark) echo --device gpu --gpu-strategy fsig --gpu-park off ;;
    fsig-paper) echo --device gpu "$FSIG_PAPER" ;;
    gsi-paper) echo --device gpu "$GSI_PAPER" ;;
    gpu-aux) echo --device gpu --gpu-structure aux ;;
    gpu-pcsr) echo --device gpu --gpu-structure pcsr ;;
    cpu) echo --device cpu ;;
    cpu-enum) echo --device cpu --spasm off ;;
    auto) echo --device auto ;;
    esac
}

case "${1:-}" in
build)
    "$root/scripts/gpu-suite.sh" build || exit 1
    for d in yeast hprd wordnet; do
        mkdir -p "$bin/sets/$d"
        cp "$root/../shared/data/$d/data_graph/$d.graph" "$bin/sets/$d/"
        cp -r "$root/../shared/data/$d/query_graph" "$bin/sets/$d/queries"
    done
    cp "$root/scripts/cpu-scaling.sh" "$bin/"
    cp "$root/../shared/bench/bigraph_gen.py" "$root/bench/jsonl-table.py" "$bin/"
    cp -r "$root/bench/queries/heavy" "$bin/heavy-queries"
    mkdir -p "$root/bench/work"
    [ -f "$root/bench/work/rmat16k.graph" ] || "$bin/subgraph" gen graph --model rmat --vertices 16384 \
        --edges 262144 --vertex-labels 32 --label-dist uniform --seed 5 --output "$root/bench/work/rmat16k.graph"
    cp "$root/bench/work/rmat16k.graph" "$bin/"
    for q in sparse_8_41 dense_16_162 dense_16_48 sparse_16_33; do
        cp "$root/../shared/data/yeast/query_graph/query_$q.graph" "$bin/sets/scaling-$q.graph"
    done
    du -sh "$bin"
    ;;
sets)
    for d in yeast hprd wordnet; do
        classes=${SETS_CLASSES:-dense_8 sparse_8 dense_16 sparse_16}
        [ "$classes" = all ] && classes=$(ls "$bin/sets/$d/queries" | sed 's/query_\(.*\)_[0-9]*\.graph/\1/' | sort -u)
        for c in $classes; do
            qs=$(ls "$bin/sets/$d/queries"/query_${c}_*.graph | sort -V | head -n "${SETS_QUERIES:-20}")
            for dev in ${SETS_DEVICES:-gpu gpu-host cpu}; do
                # shellcheck disable=SC2086
                "$sg" match -q --format json --device "${dev%%-*}" $(gpu_filter "$dev") \
                    --timeout "${SETS_TIMEOUT:-3}" ${SETS_LIMIT:+--limit "$SETS_LIMIT"} "$bin/sets/$d/$d.graph" $qs \
                    >"$out/sets-$d-$c-$dev.jsonl"
            done
        done
    done
    ;;
g3)
    g3_graph
    qs=$(ls /tmp/G3_q/*.graph | sort -V)
    t=${G3_TIMEOUT:-15}
    # shellcheck disable=SC2086
    "$sg" match -q --format json --device gpu --gpu-filter refined --timeout "$t" /tmp/G3.sgb $qs >"$out/g3-gpu.jsonl"
    # shellcheck disable=SC2086
    "$sg" match -q --format json --device gpu --gpu-filter host --timeout "$t" /tmp/G3.sgb $qs >"$out/g3-gpu-host.jsonl"
    # shellcheck disable=SC2086
    "$sg" match -q --format json --device cpu --timeout "$t" /tmp/G3.sgb $qs >"$out/g3-cpu.jsonl"
    chain g3 /tmp/G3.sgb "$t" $qs
    ;;
heavy)
    g1_graph
    qs=$(ls /tmp/G1_q/*.graph | sort -V | head -n "${HEAVY_QUERIES:-10}")
    t=${HEAVY_TIMEOUT:-30}
    for v in ${HEAVY_VARIANTS:-gpu cpu}; do
        # shellcheck disable=SC2046,SC2086
        "$sg" match -q --format json $(variant_flags "$v") ${HEAVY_FLAGS:-} --timeout "$t" /tmp/G1.sgb $qs >"$out/heavy-$v.jsonl"
    done
    ;;
heavy-set)
    for g in yeast hprd wordnet rmat16k; do
        d=$bin/sets/$g/$g.graph
        [ "$g" = rmat16k ] && d=$bin/rmat16k.graph
        qs=$(ls "$bin/heavy-queries/$g"/*.graph | sort -V)
        for v in ${HEAVY_VARIANTS:-gpu gpu-nosym cpu}; do
            # shellcheck disable=SC2046,SC2086
            "$sg" match -q --format json $(variant_flags "$v") ${HEAVY_FLAGS:-} --timeout "${HEAVY_TIMEOUT:-30}" "$d" $qs \
                >"$out/hv-$g-$v.jsonl"
        done
    done
    ;;
g1-graph) g1_graph ;;
g3-graph) g3_graph ;;
g3-variants)
    g3_graph
    qs=$(ls /tmp/G3_q/*.graph | sort -V)
    for v in ${HEAVY_VARIANTS:-gpu cpu}; do
        # shellcheck disable=SC2046,SC2086
        "$sg" match -q --format json $(variant_flags "$v") ${HEAVY_FLAGS:-} --timeout "${HEAVY_TIMEOUT:-30}" /tmp/G3.sgb $qs \
            >"$out/g3h-$v.jsonl"
    done
    ;;
large)
    labels=${LARGE_LABELS:-32}
    g=/tmp/rmat-$labels.sgb
    /usr/bin/time -v "$sg" gen graph --model rmat --vertices "${LARGE_VERTICES:-8388608}" \
        --edges "${LARGE_EDGES:-100000000}" --vertex-labels "$labels" --label-dist "${LARGE_LABEL_DIST:-powerlaw:1.0}" --seed 7 \
        --output "$g" 2>"$out/large-$labels-gen.txt"
    "$sg" info --format json "$g" >"$out/large-$labels-info.json"
    for spec in dense:8 sparse:8 dense:12 sparse:12; do
        "$sg" gen queries "$g" --size "${spec#*:}" --count "${LARGE_QUERIES:-10}" --kind "${spec%:*}" \
            --seed 3 --output "/tmp/large-$labels-q/${spec%:*}-${spec#*:}"
    done
    qs=$(find "/tmp/large-$labels-q" -name '*.graph' | sort -V)
    t=${LARGE_TIMEOUT:-20}
    for mode in ${LARGE_MODES:-limit full}; do
        for dev in ${LARGE_DEVICES:-gpu gpu-host cpu}; do
            # shellcheck disable=SC2086
            d=${dev%-host}
            "$sg" match -q --format json --device "${d%2}" $(gpu_filter "$dev") \
                $( [ "$mode" = limit ] && echo --limit 100000) --timeout "$t" "$g" $qs \
                >"$out/large-$labels-$dev-$mode.jsonl"
        done
    done
    if [ -n "${LARGE_CHAIN:-}" ]; then
        # shellcheck disable=SC2086
        CHAIN_FLAGS="--limit 100000" chain "large-$labels-limit" "$g" "$t" $qs
    fi
    ;;
hubs)
    g=/tmp/hubs.sgb
    "$sg" gen graph --model rmat --vertices "${HUBS_VERTICES:-1048576}" --edges "${HUBS_EDGES:-16777216}" \
        --vertex-labels "${HUBS_LABELS:-16}" --label-dist powerlaw:1.0 --seed 11 --output "$g"
    "$sg" info --format json "$g" >"$out/hubs-info.json"
    rm -rf /tmp/hubs-q
    for spec in 3:3 4:5 5:7; do
        "$sg" gen queries "$g" --size "${spec%:*}" --edges "${spec#*:}" --count "${HUBS_QUERIES:-3}" --kind gsi \
            --seed 3 --output "/tmp/hubs-q/gsi-${spec%:*}-${spec#*:}"
    done
    qs=$(find /tmp/hubs-q -name '*.graph' | sort -V)
    t=${HUBS_TIMEOUT:-10}
    for lb in off gsi on histogram; do
        # shellcheck disable=SC2086
        "$sg" match -q --format json --device gpu --gpu-filter refined --gpu-load-balance "$lb" --timeout "$t" \
            "$g" $qs >"$out/hubs-lb-$lb.jsonl"
    done
    # shellcheck disable=SC2086
    "$sg" match -q --format json --device cpu --timeout "$t" "$g" $qs >"$out/hubs-cpu.jsonl"
    ;;
profile)
    # Nsight Compute on the join kernels of G3's PROFILE_QUERY (clocks left alone, as the device
    # notes ask) under two-step, Prealloc-Combine, and Prealloc-Combine without the write cache.
    g3_graph
    q=/tmp/G3_q/${PROFILE_QUERY:-sparse_12_4}.graph
    for variant in two-step:on prealloc-combine:on prealloc-combine:off; do
        name=${variant%:*}
        [ "${variant#*:}" = off ] && name=$name-wcoff
        ncu --clock-control none --csv --page raw -k regex:'join_(rows|link)' -c "${PROFILE_KERNELS:-300}" \
            --metrics "${PROFILE_METRICS:-gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active}" \
            "$sg" match -q --format json --device gpu --gpu-filter refined --gpu-output "${variant%:*}" \
            --gpu-write-cache "${variant#*:}" /tmp/G3.sgb "$q" >"$out/profile-$name.csv" 2>"$out/profile-$name.err"
    done
    ;;
scaling)
    "$bin/cpu-scaling.sh" "$sg" "$bin/sets/yeast/yeast.graph" "$bin"/sets/scaling-*.graph | tee "$out/scaling.csv"
    ;;
scaling-heavy)
    # The enumeration-bound set's slowest queries (SCALING_HEAVY: graph/query-file pairs).
    for pair in ${SCALING_HEAVY:-wordnet/query_dense_12_9 wordnet/query_dense_8_3 rmat16k/query_dense_10_3}; do
        g=${pair%%/*}
        d=$bin/sets/$g/$g.graph
        [ "$g" = rmat16k ] && d=$bin/rmat16k.graph
        "$bin/cpu-scaling.sh" "$sg" "$d" "$bin/heavy-queries/$pair.graph"
    done | tee "$out/scaling-heavy.csv"
    ;;
*)
    echo "usage: $0 build|sets|g3|heavy|heavy-set|g3-variants|large|hubs|profile|scaling|scaling-heavy" >&2
    exit 2
    ;;
esac
