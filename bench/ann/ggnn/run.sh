#!/usr/bin/env bash
# Benchmark GGNN on a 1M x 128 float dataset: build the search graph on the GPU once, store it,
# then sweep the query parameters. k = 10, L2 ("euclidean").
# usage: bash run.sh BASE.fvecs QUERY.fvecs GT.ivecs OUTDIR
# env:   GGNN_BUILD_DIR (/tmp/ggnn-build, as build.sh)   GGNN_BIN (override the binary)
#        GGNN_MAX_ITERS ("200 400 1000": one process per value, the first one builds the graph)
#        BUILD_RUN_TIMEOUT (200 s), QUERY_RUN_TIMEOUT (80 s), RUN_BUDGET_S (280 s: a later run only
#        starts if it can finish, at its timeout, within the budget), so with build.sh's 300 s the
#        worst case stays under 600 s
#        KEEP_GRAPH=1 keeps the stored graph (~0.1 GB, in /tmp, never in OUTDIR)
#
# What is swept: ggnn_benchmark has no tau_query flag. --grid_search runs, in one process and on
# one graph, tau_query = 0.00..0.69 (step 0.01) and 0.7..2.0 (step 0.1), 84 settings
# (ggnn_benchmark.cpp:186-193; docs/source/benchmarking.rst:94-96). --max_iterations (default 200)
# is fixed per process and also sets the per-query cache size (query_kernels.cu: cache_size =
# max(256, bit_ceil(max_iterations))), so it is swept across processes; the graph is built and
# stored by the first process (--graph_dir, ggnn_benchmark.cpp:149-161) and loaded by the others.
#
# Timer: QPS = n_queries / t, t = the authors' cudaEvent pair recorded on the shard's stream right
# around query_kernels.query() (gpu_instance.cu:687-690, printed at :710 as "query part: 0 => ms").
# It is GPU kernel time only: the host->device copy of the 10,000 queries is enqueued on the same
# stream BEFORE the start event (gpu_instance.cu:638, dataset.cu:326-333) and the device->host copy
# of the results happens after the stop event (ggnn.cu:318), so transfers are NOT included.
# Graph build time: "Sum of shard build times" (cudaEvents around construction + refinement,
# gpu_instance.cu:549-558) and "Wall time" (host steady_clock around GGNN::build(), ggnn.cu:215-239,
# includes allocation and the base upload).
set -uo pipefail
KIT="$(cd "$(dirname "$0")" && pwd)"
if [ $# -ne 4 ]; then
  echo "usage: $0 BASE.fvecs QUERY.fvecs GT.ivecs OUTDIR" >&2; exit 2
fi
BASE="$(readlink -f "$1")"; QUERY="$(readlink -f "$2")"; GT="$(readlink -f "$3")"; OUT="$4"
mkdir -p "$OUT"; OUT="$(readlink -f "$OUT")"
BUILD_DIR="${GGNN_BUILD_DIR:-/tmp/ggnn-build}"
BIN="${GGNN_BIN:-$BUILD_DIR/ggnn_benchmark}"
ITERS="${GGNN_MAX_ITERS:-200 400 1000}"
BUDGET="${RUN_BUDGET_S:-280}"
log() { echo "$*" | tee -a "$OUT/run.txt"; }
: > "$OUT/run.txt"

[ -x "$BIN" ] || { log "ERROR: $BIN not found; run build.sh first"; exit 1; }
# the benchmark brute-forces and WRITES the gt file if it does not exist: require it
for f in "$BASE" "$QUERY" "$GT"; do
  [ -s "$f" ] || { log "ERROR: missing or empty input file: $f"; exit 1; }
done
# xvecs: each row = int32 dim + dim values of 4 bytes
shape() {
  local d s; d=$(od -An -t d4 -N4 "$1" | tr -d ' '); s=$(stat -c %s "$1")
  if [ -n "$d" ] && [ "$d" -gt 0 ] && [ $((s % (4 + 4 * d))) -eq 0 ]; then
    echo "$((s / (4 + 4 * d))) x $d"
  else echo "?? (size $s, first dim '$d')"; fi
}
log "== base  $BASE: $(shape "$BASE")   (expected 1000000 x 128)"
log "== query $QUERY: $(shape "$QUERY")   (expected 10000 x 128)"
log "== gt    $GT: $(shape "$GT")   (expected 10000 x 100)"
[ -f "$BUILD_DIR/kit-env.sh" ] && . "$BUILD_DIR/kit-env.sh"   # CUDA lib dir for libcurand
# load all kernels at start-up so that lazy module loading cannot land inside a timed query
export CUDA_MODULE_LOADING=EAGER
timeout 30 nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || true
timeout 30 nvidia-smi -L 2>/dev/null | tee -a "$OUT/run.txt" || true
ldd "$BIN" > "$OUT/ldd.txt" 2>&1 || true
if grep -q 'not found' "$OUT/ldd.txt"; then log "WARNING: unresolved libraries:"; grep 'not found' "$OUT/ldd.txt" | tee -a "$OUT/run.txt"; fi

GRAPH_DIR="$(mktemp -d "${TMPDIR:-/tmp}/ggnn-graph.XXXXXX")"
log "== graph dir: $GRAPH_DIR"
# authors' SIFT1M configuration: the ggnn_benchmark defaults, as listed in benchmarking.rst:105-120
COMMON=(--base "$BASE" --query "$QUERY" --gt "$GT" --graph_dir "$GRAPH_DIR"
        --k_build 24 --tau_build 0.5 --refinement_iterations 2
        --k_query 10 --measure euclidean --shard_size 0 --subset 0 --gpu_ids 0 --grid_search=true)
START=$(date +%s)
LOGS=()
first=1
for it in $ITERS; do
  now=$(date +%s)
  if [ "$first" = 1 ]; then lim="${BUILD_RUN_TIMEOUT:-200}"; else lim="${QUERY_RUN_TIMEOUT:-80}"; fi
  if [ "$first" = 0 ] && [ $((now - START + lim)) -gt "$BUDGET" ]; then
    log "== skipping max_iterations=$it: ${lim}s more would exceed the run budget of ${BUDGET}s"; continue
  fi
  L="$OUT/ggnn_maxiter${it}.log"
  log "== run: max_iterations=$it ($([ "$first" = 1 ] && echo 'build + store graph' || echo 'load graph')), timeout ${lim}s -> $L"
  t0=$(date +%s.%N)
  timeout -k 10 "$lim" "$BIN" "${COMMON[@]}" --max_iterations "$it" > "$L" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  log "   rc=$rc, process wall $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}') s"
  LOGS+=("$L")
  if [ "$rc" -ne 0 ]; then
    log "   last lines:"; tail -n 25 "$L" | tee -a "$OUT/run.txt"
  fi
  if [ "$first" = 1 ] && [ ! -f "$GRAPH_DIR/part_0.ggnn" ]; then
    log "ERROR: no stored graph ($GRAPH_DIR/part_0.ggnn) after the first run; not starting the others"
    first=0; break
  fi
  first=0
done

if [ ${#LOGS[@]} -gt 0 ]; then
  timeout 60 python3 "$KIT/parse_log.py" "$OUT/results.csv" "${LOGS[@]}" | tee "$OUT/summary.txt" | tee -a "$OUT/run.txt"
fi
if [ "${KEEP_GRAPH:-0}" = 1 ]; then log "== graph kept in $GRAPH_DIR"; else rm -rf "$GRAPH_DIR"; fi
log "== total $(( $(date +%s) - START )) s; outputs in $OUT: run.txt summary.txt results.csv ggnn_maxiter*.log nvidia-smi.txt"
# exit 0 only if at least one query setting was measured
[ "$(wc -l < "$OUT/results.csv" 2>/dev/null || echo 0)" -gt 1 ]
