#!/usr/bin/env bash
# GPU test suite of subgraph, in two modes.
#   scripts/gpu-suite.sh build   (here, with Rust): release build, test executables of
#       subgraph-gpu, the compare example, the subgraph binary and small data, all copied to
#       .device-bin (git-ignored).
#   scripts/gpu-suite.sh run     (on the device, from the repo root, .device-bin carried):
#       runs each test executable with SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1, then
#       GPU-vs-CPU-vs-known counts on yeast and HPRD queries (compare example), then, once the
#       CLI has --device, `subgraph match --device gpu` vs `--device cpu` on the HPRD oracle
#       queries. Full log in $OUT/gpu-suite.log; the last line is `N passed, N failed`.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.device-bin"

build() {
    set -e
    cd "$root"
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/target-gpu}
    # The subgraph binary needs the whole workspace; without it the suite still runs.
    cargo build --release || echo "warning: the workspace build failed: no subgraph binary" >&2
    cargo build --release -p subgraph-gpu --examples
    local list
    list=$(cargo test --release --no-run -p subgraph-gpu 2>&1 | tee /dev/stderr |
        sed -n 's/.*Executable .* (\(.*\))$/\1/p')
    rm -rf "$bin"
    mkdir -p "$bin/tests" "$bin/data"
    for exe in $list; do
        local name
        name=$(basename "$exe" | sed 's/-[0-9a-f]*$//')
        cp "$exe" "$bin/tests/$name"
    done
    [ -x "$CARGO_TARGET_DIR/release/subgraph" ] && cp "$CARGO_TARGET_DIR/release/subgraph" "$bin/subgraph"
    cp "$CARGO_TARGET_DIR/release/examples/compare" "$bin/compare"
    local shared=/work/shared/data
    # Yeast: queries of 4 and 8 vertices with at most 10^6 known embeddings.
    mkdir -p "$bin/data/yeast/queries"
    cp "$shared/yeast/data_graph/yeast.graph" "$bin/data/yeast/"
    awk '$1 ~ /_(4|8)_/ && $2 <= 1000000 && n++ < 80' "$shared/yeast/yeast_ans.txt" \
        >"$bin/data/yeast/answers.txt"
    # ... and larger ones (16 to 32 vertices, 10^5 to 10^9 embeddings) for timings.
    awk '$1 ~ /_(16|24|32)_/ && $2 >= 100000 && $2 <= 1000000000 && n++ < 20' \
        "$shared/yeast/yeast_ans.txt" >"$bin/data/yeast/answers-large.txt"
    cat "$bin/data/yeast/answers.txt" "$bin/data/yeast/answers-large.txt" | cut -d' ' -f1 |
        while read -r q; do
        cp "$shared/yeast/query_graph/$q" "$bin/data/yeast/queries/"
    done
    # HPRD oracle: tests/data/hprd/ once in the repo, else the shared copy.
    # (in the repo: HPRD.graph, queries/, expected_output.res; shared: data_graph/HPRD.graph,
    # query_graph/, expected_output.res).
    local hprd="$root/tests/data/hprd"
    mkdir -p "$bin/data/hprd"
    if [ -f "$hprd/HPRD.graph" ]; then
        cp "$hprd/HPRD.graph" "$hprd/expected_output.res" "$bin/data/hprd/"
        cp -r "$hprd/queries" "$bin/data/hprd/queries"
    else
        hprd="$shared/hprd-oracle"
        cp "$hprd/data_graph/HPRD.graph" "$hprd/expected_output.res" "$bin/data/hprd/"
        cp -r "$hprd/query_graph" "$bin/data/hprd/queries"
    fi
    # Debug info would push the carried folder past the device tool's 64 MiB.
    strip --strip-debug "$bin"/tests/* "$bin"/compare "$bin"/subgraph 2>/dev/null || true
    du -sh "$bin"
    ls "$bin/tests"
}

run_all() {
    local passed=0 failed=0
    # NVRTC: on the loader path, or found under the usual CUDA and Python locations.
    if ! ldconfig -p | grep -q 'libnvrtc.so.13'; then
        local lib
        lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
        [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv || true
    for exe in "$bin"/tests/*; do
        local name start rc
        name=$(basename "$exe")
        start=$SECONDS
        SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout "${SUITE_TEST_TIMEOUT:-300}" "$exe" --nocapture
        rc=$?
        echo "test executable $name: rc=$rc, $((SECONDS - start)) s"
        if [ "$rc" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    done
    # Counts on benchmark queries: GPU vs CPU vs known.
    local d="$bin/data"
    for set in "yeast $d/yeast/yeast.graph $d/yeast/queries $d/yeast/answers.txt" \
        "yeast-large $d/yeast/yeast.graph $d/yeast/queries $d/yeast/answers-large.txt" \
        "hprd $d/hprd/HPRD.graph $d/hprd/queries $d/hprd/expected_output.res"; do
        set -- $set
        echo "== compare on $1"
        local out
        out=$("$bin/compare" "$2" "$3" "$4" "${SUITE_QUERIES:-60}" "${SUITE_TIMEOUT:-10}" 2>&1)
        echo "$out"
        passed=$((passed + $(grep -c ' OK$' <<<"$out")))
        failed=$((failed + $(grep -cE ' (FAIL|ERROR|MISSING)' <<<"$out")))
        grep -q '^# .* queries, ' <<<"$out" || failed=$((failed + 1))
    done
    # The CLI, once it has --device.
    if [ -x "$bin/subgraph" ] && "$bin/subgraph" match --help 2>&1 | grep -q -- '--device'; then
        echo "== subgraph match --device gpu vs cpu on HPRD oracle queries"
        local qs
        qs=$(ls "$d/hprd/queries"/*.graph | head -n "${SUITE_QUERIES:-60}")
        for dev in cpu gpu; do
            "$bin/subgraph" match "$d/hprd/HPRD.graph" $qs --device "$dev" \
                --format json --quiet --timeout "${SUITE_TIMEOUT:-10}" >"/tmp/suite-$dev.json" 2>&1
            echo "device $dev: rc=$?"
        done
        local verdict
        verdict=$(python3 - "$d/hprd/expected_output.res" <<'EOF'
import json, os, sys
known = {}
for line in open(sys.argv[1]):
    if ':' in line:
        k, v = line.strip().split(':')
        known[k] = int(v)
def rows(path):
    out = {}
    for line in open(path):
        line = line.strip()
        if not line.startswith('{') and not line.startswith('['):
            continue
        data = json.loads(line)
        for r in data if isinstance(data, list) else [data]:
            if 'query' in r:
                out[os.path.basename(r['query']).removesuffix('.graph')] = r
    return out
cpu, gpu = rows('/tmp/suite-cpu.json'), rows('/tmp/suite-gpu.json')
ok = bad = 0
for q, c in sorted(cpu.items()):
    g = gpu.get(q)
    if g is None:
        print(f'{q} missing on gpu'); bad += 1; continue
    if c['complete'] and g['complete']:
        good = c['embeddings'] == g['embeddings'] and known.get(q, c['embeddings']) == c['embeddings']
        print(f"{q} cpu={c['embeddings']} gpu={g['embeddings']} known={known.get(q)} cpu_ms={c.get('elapsed_ms')} gpu_ms={g.get('elapsed_ms')} {'OK' if good else 'FAIL'}")
        ok += good; bad += not good
if not cpu:
    bad += 1
print(f'CLI {ok} {bad}')
EOF
        )
        echo "$verdict"
        local cli
        cli=$(tail -n 1 <<<"$verdict")
        passed=$((passed + $(cut -d' ' -f2 <<<"$cli")))
        failed=$((failed + $(cut -d' ' -f3 <<<"$cli")))
    else
        echo "== subgraph match has no --device yet: CLI comparison skipped"
    fi
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
