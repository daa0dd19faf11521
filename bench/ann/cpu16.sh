#!/usr/bin/env bash
# Issue 40's CPU target on the GPU host's 16 cores: our CPU search against hnswlib's at recall@10
# 0.90/0.95/0.99 on 1M x 128 (the data of the earlier calls), both on the same THREADS threads,
# k = 10, batches of 10,000 queries, searches alternated batch by batch (bench/ann/cpu_alternate.py).
#
#   bench/ann/cpu16.sh SUBGRAPH PROBE OUT [DATA] [SITE]        # from the repository root
#
# SUBGRAPH  our command-line tool (a stripped release build): generates the data where DATA has
#           none and builds our index with `ann build --device cpu` (the defaults: hnsw, degree
#           32, d_min 20, ef_construction 128, diverse pruning) on THREADS threads.
# PROBE     crates/subgraph-ann's ann_probe example (a stripped release build), which serves our
#           searches to the alternation (Index::search, as `subgraph ann bench` runs it).
# OUT       the results folder (the device's $OUT).
# DATA      [/tmp/ann/g128] base.fvecs, query.fvecs, gt.ivecs; made where missing with
#           `SUBGRAPH gen vectors --count N --dim 128 --queries 10000 --gt-k 100 --device gpu`.
# SITE      [/tmp/annsite] a folder with hnswlib for PYTHONPATH; where it has none, hnswlib's
#           sdist (.whl/hnswlib-*.tar.gz, carried) is built into it with pip (no network, no
#           build isolation: g++ -O3 -march=native against the machine's numpy and pybind11, as
#           bench/ann/setup_cpu_peers.sh does). hnswlib's index: M 16, ef_construction 200,
#           random_seed 100, built on THREADS threads (bench/ann/hnsw_saved.py build).
#
# Environment: THREADS [16], N [1000000], ROUNDS [3], RUNS [3],
# EFS [16,24,32,40,48,64,96,128,192,256], GEN_DEVICE [gpu] (the ground truth's device),
# BUILD_ARGS [none] (added to our `ann build`, e.g. "--d-min 20 --ef-construction 128"),
# BASE_BUILD_ARGS [BUILD_ARGS] (the same for main's index below; set it empty for the defaults),
# BASE_SUBGRAPH and BASE_PROBE (optional: the same two built at an earlier commit, e.g. main's
# ae43274; their index is built too and measured as "main").
#
# Device call (carry the two binaries and hnswlib's sdist, well under the 64 MiB):
#   mkdir -p .device-bin && strip -o .device-bin/subgraph target/release/subgraph \
#     && strip -o .device-bin/ann_probe target/release/examples/ann_probe
#   run: kind nvidia-h200, carry [".device-bin", ".whl/hnswlib-0.8.0.tar.gz"], timeout_s 600,
#     command: bench/ann/cpu16.sh .device-bin/subgraph .device-bin/ann_probe $OUT
#   (with BASE_SUBGRAPH=.device-bin/base-subgraph BASE_PROBE=.device-bin/base-ann_probe in front,
#   main's binaries stripped there too, about a minute more.)
# It takes about 4 minutes (data 10 s, hnswlib's build from source about 1 min, its index about
# 40 s, ours about 25 s, the alternation 1-2 min). Outputs: $OUT/cpu16.log (everything),
# $OUT/alternate/summary.md and raw.jsonl, $OUT/build-*.json, $OUT/count.txt (distances a query).
set -uo pipefail
[ $# -ge 3 ] || { sed -n 2,36p "$0"; exit 2; }
S=$1 PROBE=$2 OUT=$3 D=${4:-/tmp/ann/g128} SITE=${5:-/tmp/annsite}
THREADS=${THREADS:-16} N=${N:-1000000} ROUNDS=${ROUNDS:-3} RUNS=${RUNS:-3}
EFS=${EFS:-16,24,32,40,48,64,96,128,192,256}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT" "$D" "$SITE"
exec > >(tee -a "$OUT/cpu16.log") 2>&1
step() { echo "== $(date -u +%H:%M:%S) $*"; }

step "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
step "code: $(git rev-parse --short HEAD 2>/dev/null || echo '?') threads $THREADS rounds $ROUNDS runs $RUNS efs $EFS"

if [ ! -s "$D/gt.ivecs" ]; then
  step "data: $N x 128, 10,000 queries, exact ground truth"
  timeout 180 "$S" gen vectors --count "$N" --dim 128 --queries 10000 --gt-k 100 --output "$D/base.fvecs" \
    --queries-output "$D/query.fvecs" --ground-truth "$D/gt.ivecs" --device "${GEN_DEVICE:-gpu}" || exit 1
fi

if ! PYTHONPATH=$SITE timeout 60 python3 -c "import hnswlib" 2>/dev/null; then
  H=$(ls .whl/hnswlib-*.tar.gz 2>/dev/null | head -n 1)
  [ -n "$H" ] || { echo "cpu16.sh: no hnswlib in $SITE and no .whl/hnswlib-*.tar.gz to build it from"; exit 1; }
  step "hnswlib: building $H into $SITE"
  timeout 400 python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-cache-dir --target "$SITE" "$H" || exit 1
fi
export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
python3 -c "import hnswlib, importlib.metadata as m; print('hnswlib', m.version('hnswlib'), hnswlib.__file__)"

if [ ! -s "$D/hnsw-M16-efc200.bin" ]; then
  step "hnswlib's index (M 16, ef_construction 200, $THREADS threads)"
  timeout 400 python3 "$HERE/hnsw_saved.py" build "$D/base.fvecs" "$D/hnsw-M16-efc200.bin" --threads "$THREADS" \
    | tee "$OUT/build-hnswlib.txt" || exit 1
fi

step "our index (ann build --device cpu ${BUILD_ARGS:-(the defaults)}, $THREADS threads)"
# shellcheck disable=SC2086 # BUILD_ARGS is a list of flags
timeout 300 "$S" ann build "$D/base.fvecs" --output "$D/ours.sgi" --device cpu --threads "$THREADS" \
  ${BUILD_ARGS:-} > "$OUT/build-ours.json" || exit 1
cat "$OUT/build-ours.json"; echo
SYSTEMS=(--system "hnswlib=python3 $HERE/hnsw_saved.py serve $D/base.fvecs $D/hnsw-M16-efc200.bin $D/query.fvecs $D/gt.ivecs --threads $THREADS"
         --system "ours=RAYON_NUM_THREADS=$THREADS $PROBE serve $D/ours.sgi $D/query.fvecs $D/gt.ivecs")
if [ -n "${BASE_SUBGRAPH:-}" ] && [ -n "${BASE_PROBE:-}" ]; then
  step "main's index (BASE_SUBGRAPH)"
  # shellcheck disable=SC2086 # as BUILD_ARGS
  timeout 300 "$BASE_SUBGRAPH" ann build "$D/base.fvecs" --output "$D/main.sgi" --device cpu --threads "$THREADS" \
    ${BASE_BUILD_ARGS-${BUILD_ARGS:-}} \
    > "$OUT/build-main.json" || exit 1
  cat "$OUT/build-main.json"; echo
  SYSTEMS+=(--system "main=RAYON_NUM_THREADS=$THREADS $BASE_PROBE serve $D/main.sgi $D/query.fvecs $D/gt.ivecs")
fi

step "alternation"
timeout 420 python3 "$HERE/cpu_alternate.py" --out "$OUT/alternate" --rounds "$ROUNDS" --runs "$RUNS" --efs "$EFS" \
  --quiet 0 --max-starved 1 "${SYSTEMS[@]}" | grep -v "^  r[0-9]"

step "distance computations a query (500 queries), degrees"
timeout 120 "$PROBE" count "$D/ours.sgi" "$D/hnsw-M16-efc200.bin" "$D/base.fvecs" "$D/query.fvecs" "$D/gt.ivecs" \
  --efs 32,48,64,96 --count-queries 500 > "$OUT/count.txt" 2>&1; cat "$OUT/count.txt"
step "done"
