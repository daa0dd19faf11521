#!/usr/bin/env bash
# The GPU suite of subgraph, in two steps.
#   scripts/gpu-suite.sh build   here (with Rust): release build of the `subgraph` binary and the
#       test executables of subgraph-cuda, subgraph-gpu, subgraph-ann (vector search) and subgraph
#       (the runner), copied with the test data into .device-bin (git-ignored).
#   scripts/gpu-suite.sh run     on the GPU machine, from the repository root, .device-bin
#       carried: runs every GPU test executable with SUBGRAPH_REQUIRE_GPU=1
#       SUBGRAPH_REQUIRE_NVRTC=1 (each one pass or fail), then `subgraph match --device gpu`
#       against `--device cpu` and the known counts on the HPRD oracle queries, the yeast
#       queries with known counts, both again under FSIG's strategy (with the host spill on every
#       level) and GpSM's (with its switches on 20 HPRD queries), and the HPRD queries in every
#       ablation combination, multigraph sets (yeast with label sets, parallel edges and self
#       loops; a knowledge graph's patterns against Oxigraph's counts), and on a host with two GPUs both oracles with `--gpus 2` (each
#       query one pass or fail). Full log in $OUT/gpu-suite.log; the last line is
#       `N passed, N failed`.
# Settings: SUITE_QUERIES (queries per set, default 200), SUITE_TIMEOUT (seconds per query,
# default 20), SUITE_TEST_TIMEOUT (seconds per test executable, default 400), SUITE_ONLY (an
# extended regular expression: only the query sets whose names match, and no test executables).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.device-bin"

build() {
    set -e
    cd "$root"
    local target=${CARGO_TARGET_DIR:-$root/target}
    cargo build --release --bin subgraph
    local list
    list=$(cargo test --release --no-run -p subgraph-cuda -p subgraph-gpu -p subgraph-ann -p subgraph 2>&1 | sed -n 's/.*Executable .* (\(.*\))$/\1/p')
    rm -rf "$bin"
    mkdir -p "$bin/tests" "$bin/data"
    for exe in $list; do
        # Packages may name test files alike (subgraph-gpu's and subgraph-ann's nvrtc.rs).
        local name dest i=2
        name=$(basename "$exe" | sed 's/-[0-9a-f]*$//')
        dest="$bin/tests/$name"
        while [ -e "$dest" ]; do dest="$bin/tests/$name-$i"; i=$((i + 1)); done
        cp "$exe" "$dest"
    done
    cp "$target/release/subgraph" "$bin/subgraph"
    cp -r "$root/tests/data/hprd" "$root/tests/data/yeast" "$bin/data/"
    cp "$root/scripts/compare-counts.py" "$bin/"
    # Multigraph sets (issue 39): yeast with label sets, parallel edges and self loops; a
    # knowledge graph with several classes per entity and predicates per pair, and its patterns
    # with Oxigraph's counts.
    python3 "$root/scripts/multigraph-data.py" "$root/tests/data/yeast/yeast.graph" "$bin/data/yeast-multi.el"
    "$target/release/subgraph" gen rdf --universities 1 --facts --output "$bin/data/kg.nt"
    mkdir -p "$bin/data/kg"
    local k=0
    while IFS= read -r p; do
        k=$((k + 1))
        printf '%s\n' "$p" >"$bin/data/kg/p$k.cypher"
    done < <(grep -v '^#' "$root/bench/queries/kg/patterns.txt")
    cp "$root/bench/queries/kg/expected.txt" "$bin/data/kg/"
    strip --strip-debug "$bin"/tests/* "$bin/subgraph"
    du -sh "$bin"
}

# compare NAME DATA ANSWERS QUERY... [-- EXTRA FLAGS]: CPU against GPU and the known counts.
compare() {
    local name=$1 data=$2 answers=$3
    shift 3
    local queries=() flags=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do queries+=("$1"); shift; done
    [ $# -gt 0 ] && shift && flags=("$@")
    local s="${SUITE_TIMEOUT:-20}"
    [ -f "/tmp/suite-cpu-$name.jsonl" ] ||
        "$bin/subgraph" match -q --format json --device cpu --timeout "$s" "$data" "${queries[@]}" \
            >"/tmp/suite-cpu-$name.jsonl"
    "$bin/subgraph" match -q --format json --device gpu --timeout "$s" "${flags[@]}" "$data" "${queries[@]}" \
        >"/tmp/suite-gpu-$name.jsonl"
    python3 "$bin/compare-counts.py" "$answers" "/tmp/suite-cpu-$name.jsonl" "/tmp/suite-gpu-$name.jsonl" "$name"
}

run_all() {
    local passed=0 failed=0 n=${SUITE_QUERIES:-200}
    if ! ldconfig -p | grep -q 'libnvrtc.so.13'; then
        local lib
        lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
        [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
    nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv || true
    local only=${SUITE_ONLY:-}
    for exe in "$bin"/tests/*; do
        [ -n "$only" ] && break
        local start=$SECONDS rc
        SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout "${SUITE_TEST_TIMEOUT:-400}" "$exe"
        rc=$?
        echo "test executable $(basename "$exe"): rc=$rc, $((SECONDS - start)) s"
        if [ "$rc" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    done
    local d="$bin/data" out line
    local hprd_q yeast_q
    hprd_q=$(ls "$d/hprd/queries"/*.graph | head -n "$n")
    yeast_q=$(cut -d' ' -f1 "$d/yeast/expected.txt" | head -n "$n" | sed "s|^|$d/yeast/queries/|")
    local sets=("hprd $d/hprd/HPRD.graph $d/hprd/expected_output.res $hprd_q"
        "yeast $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q")
    # Depth-first counting with counted tails and symmetry breaking forced on, and the
    # breadth-first join without them, over the oracles.
    sets+=("hprd-dfs $d/hprd/HPRD.graph $d/hprd/expected_output.res $hprd_q -- --gpu-dfs on --tail on"
        "yeast-dfs $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-dfs on --tail on"
        "yeast-bfs $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-dfs off --symmetry off")
    # The depth-first kernel from the first level on (every level enumerated in its warps),
    # with work stealing and without.
    sets+=("hprd-dfs-first $d/hprd/HPRD.graph $d/hprd/expected_output.res $hprd_q -- --gpu-dfs on --gpu-dfs-frontier 1"
        "yeast-dfs-first $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-dfs on --gpu-dfs-frontier 1"
        "yeast-dfs-first-nosteal $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-dfs on --gpu-dfs-frontier 1 --gpu-dfs-steal off")
    # FSIG's auxiliary structure A in place of PCSR, with and without depth-first counting.
    sets+=("hprd-aux $d/hprd/HPRD.graph $d/hprd/expected_output.res $hprd_q -- --gpu-structure aux"
        "yeast-aux $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-structure aux"
        "yeast-aux-dfs $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-structure aux --gpu-dfs on --tail on"
        "yeast-aux-bfs $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-structure aux --gpu-dfs off --symmetry off")
    # FSIG's strategy over the oracles (CFL order, A, breadth-first levels), with the host
    # spill on every level (tables row after row, and column after column as SGSI keeps them),
    # and with the depth-first kernel and symmetry breaking.
    sets+=("hprd-fsig $d/hprd/HPRD.graph $d/hprd/expected_output.res $hprd_q -- --gpu-strategy fsig"
        "yeast-fsig $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-strategy fsig --symmetry off"
        "yeast-fsig-park $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-strategy fsig --gpu-park on"
        "yeast-fsig-park-columns $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-strategy fsig --gpu-park on --gpu-park-layout columns"
        "hprd-park-columns $d/hprd/HPRD.graph $d/hprd/expected_output.res $hprd_q -- --gpu-park on --gpu-park-layout columns --gpu-dfs off --gpu-pipeline off"
        "hprd-fsig-dfs $d/hprd/HPRD.graph $d/hprd/expected_output.res $hprd_q -- --gpu-strategy fsig --gpu-dfs on --tail on")
    # SGSI's partitions: the graph in host memory in segments of 16 or 64 KiB, copied when a
    # query reads them (resident 0) or kept, with each filter and the depth-first kernel.
    sets+=("hprd-part $d/hprd/HPRD.graph $d/hprd/expected_output.res $hprd_q -- --gpu-partitions on --gpu-segment 64K --gpu-resident 0"
        "yeast-part $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-partitions on --gpu-segment 64K --gpu-resident 0"
        "yeast-part-dfs $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-partitions on --gpu-segment 16K --gpu-dfs on --tail on"
        "hprd-part-host $d/hprd/HPRD.graph $d/hprd/expected_output.res $hprd_q -- --gpu-partitions on --gpu-segment 16K --gpu-filter host"
        "yeast-part-signature $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-partitions on --gpu-segment 16K --gpu-filter signature --gpu-resident 0")
    # Two GPUs of one host, where there are two: every query dealt to both devices
    # (`--gpu-share-from 0`), in core and with the graph in partitions on each device.
    if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -ge 2 ]; then
        sets+=("hprd-gpus2 $d/hprd/HPRD.graph $d/hprd/expected_output.res $hprd_q -- --gpus 2 --gpu-share-from 0"
            "yeast-gpus2 $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpus 2 --gpu-share-from 0"
            "yeast-gpus2-part $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpus 2 --gpu-share-from 0 --gpu-partitions on --gpu-segment 64K --gpu-resident 0")
    fi
    # Label sets, parallel edges and self loops (issue 39): the yeast queries on yeast made a
    # multigraph (CPU against GPU), and the knowledge graph's patterns (against Oxigraph's
    # counts), with the default strategy, FSIG's, GpSM's and the partitions.
    local kg_q
    kg_q=$(ls "$d/kg"/p*.cypher | sort -V)
    sets+=("yeast-multi $d/yeast-multi.el - $yeast_q"
        "yeast-multi-fsig $d/yeast-multi.el - $yeast_q -- --gpu-strategy fsig"
        "yeast-multi-part $d/yeast-multi.el - $yeast_q -- --gpu-partitions on --gpu-segment 64K --gpu-resident 0"
        "kg $d/kg.nt $d/kg/expected.txt $kg_q"
        "kg-gpsm $d/kg.nt $d/kg/expected.txt $kg_q -- --gpu-strategy gpsm"
        "kg-dfs $d/kg.nt $d/kg/expected.txt $kg_q -- --gpu-dfs on --tail on")
    local few
    few=$(ls "$d/hprd/queries"/*.graph | head -n 20)
    # GpSM's strategy over the oracles, and its ablation switches on 20 HPRD queries.
    sets+=("hprd-gpsm $d/hprd/HPRD.graph $d/hprd/expected_output.res $hprd_q -- --gpu-strategy gpsm"
        "yeast-gpsm $d/yeast/yeast.graph $d/yeast/expected.txt $yeast_q -- --gpu-strategy gpsm")
    for r in 0 1 10; do for m in 1 2 3; do
        sets+=("hprd-gpsm-r$r-d$m $d/hprd/HPRD.graph $d/hprd/expected_output.res $few -- --gpu-strategy gpsm --gpsm-rounds $r --gpsm-min-degree $m")
    done; done
    # Every ablation combination on 20 HPRD queries.
    for f in refined signature host; do for st in pcsr csr aux; do for o in prealloc-combine two-step; do for wc in on off; do for lb in on gsi off; do
        sets+=("hprd-$f-$st-$o-wc$wc-lb$lb $d/hprd/HPRD.graph $d/hprd/expected_output.res $few -- --gpu-filter $f --gpu-structure $st --gpu-output $o --gpu-write-cache $wc --gpu-load-balance $lb")
    done; done; done; done; done
    for set in "${sets[@]}"; do
        [ -n "$only" ] && ! grep -Eq "$only" <<<"${set%% *}" && continue
        # shellcheck disable=SC2086
        out=$(compare $set)
        echo "== $(head -c 80 <<<"$set")"
        echo "$out"
        line=$(tail -n 1 <<<"$out")
        passed=$((passed + $(cut -d' ' -f2 <<<"$line")))
        failed=$((failed + $(cut -d' ' -f3 <<<"$line")))
    done
    echo "$passed passed, $failed failed"
}

case "${1:-}" in
build) build ;;
run)
    cd "$root"
    log="${OUT:-/tmp}/gpu-suite.log"
    mkdir -p "$(dirname "$log")"
    run_all 2>&1 | tee "$log"
    ;;
*)
    echo "usage: $0 build|run" >&2
    exit 2
    ;;
esac
