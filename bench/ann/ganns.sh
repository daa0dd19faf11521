#!/usr/bin/env bash
# GANNS (the authors' GPU graph ANN search, github.com/yuyuanhang/GANNS) on the same data as our
# engine: build it for sm_90, build its graph on BASE (timed), search all queries in one batch for
# a sweep of e at k = 10, and append CSV rows
#     system,dataset,n,dim,build_seconds,param,recall_at_10,qps,batch,threads
#
#   bench/ann/ganns.sh BASE QUERIES GT --out CSV [options]
#
# BASE, QUERIES: .fvecs; GT: .ivecs (>= 10 exact neighbour ids per query, squared L2), as
# `subgraph gen vectors` writes them. Options (defaults in brackets):
#   --src DIR            GANNS sources (a copy of the repository: CMakeLists.txt, src/) [.peers/ganns]
#   --work DIR           build, graphs, result files, logs [/tmp/ganns-work]
#   --log FILE           everything GANNS and nvcc printed, appended [WORK/ganns.log]
#   --graphs LIST        nsw, hnsw or both [nsw,hnsw]
#   --d-min N            GANNS' d_min (minimum degree; d_max = 2 * d_min) [16]
#   --build-m N          GANNS' construction queue M (rounded up to 2^x, e = M) [64]
#   --es LIST            search e values [10,16,24,32,48,64,96,128,192,256,384,512]
#   --repeat R           searches per e in one process; QPS from the median [3]
#   --dataset NAME       [from BASE's file name]
#   --arch N             compute capability to build for [90]
#   --compile-timeout S / --build-timeout S / --search-timeout S   [900 / 1800 / 600]
#   --bin PATH           use this GANNS binary (built for this dimension) instead of compiling
#   --compile-only       stop after compiling (prints the binary's path)
# Environment: NVCC (the compiler; else PATH, /usr/local/cuda/bin, /usr/local/cuda-*/bin),
#   NVCC_FLAGS (extra flags, e.g. -L for a nonstandard cudart), PYTHON [python3, needs numpy].
#
# Rows: system 'ganns-nsw' / 'ganns-hnsw' with GANNS' own QPS (its host timer around its search
# call, which also copies base, graph and queries to the GPU and the results back), and
# 'ganns-nsw-kernel' / 'ganns-hnsw-kernel' with queries / time of the search kernel alone (CUDA
# events, added by ganns.patch). build_seconds: GANNS' "Running time" of the construction (from
# the points in host memory to the graph in host memory; file reading and writing excluded).
# param = e; the queue size is M = the smallest power of two >= max(e, 10, 2 * pow2(d_min))
# (GANNS needs M >= 2^x >= e, and M >= 2 * pow2(d_min) for its bitonic merge). batch = all
# queries; threads = gpu. recall_at_10 is recomputed from the result ids against GT.
#
# The sources are copied to WORK/src and ganns.patch (CUDA 13 / sm_90 fixes, checked launches,
# kernel timer; see its header) is applied there; the tree under --src is never modified.
# Every step runs under `timeout`. Exits non-zero if anything failed (rows written so far stay).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
die() { echo "ganns.sh: ERROR: $*" >&2; exit 1; }
say() { echo "[ganns $(date +%H:%M:%S)] $*"; }

SRC="$ROOT/.peers/ganns"; WORK=/tmp/ganns-work; LOG=""; OUTCSV=""; GRAPHS=nsw,hnsw; DMIN=16; BUILDM=64
ES=10,16,24,32,48,64,96,128,192,256,384,512; REPEAT=3; DATASET=""; ARCH=90; K=10
CT=900; BT=1800; ST=600; BIN=""; COMPILE_ONLY=0; POS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUTCSV=$2; shift 2 ;;
    --src) SRC=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --log) LOG=$2; shift 2 ;;
    --graphs) GRAPHS=$2; shift 2 ;;
    --d-min) DMIN=$2; shift 2 ;;
    --build-m) BUILDM=$2; shift 2 ;;
    --es) ES=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --dataset) DATASET=$2; shift 2 ;;
    --arch) ARCH=$2; shift 2 ;;
    --compile-timeout) CT=$2; shift 2 ;;
    --build-timeout) BT=$2; shift 2 ;;
    --search-timeout) ST=$2; shift 2 ;;
    --bin) BIN=$2; shift 2 ;;
    --compile-only) COMPILE_ONLY=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) POS+=("$1"); shift ;;
  esac
done
[ ${#POS[@]} -eq 3 ] || die "usage: ganns.sh BASE QUERIES GT --out CSV [options] (see --help)"
BASE=$(realpath "${POS[0]}"); QUERIES=$(realpath "${POS[1]}"); GT=$(realpath "${POS[2]}")
for f in "$BASE" "$QUERIES" "$GT"; do [ -s "$f" ] || die "no such file (or empty): $f"; done
[ -n "$OUTCSV" ] || [ $COMPILE_ONLY -eq 1 ] || die "--out CSV is required"
[ -z "$OUTCSV" ] || OUTCSV=$(realpath -m "$OUTCSV")
PY=${PYTHON:-python3}
"$PY" -c 'import numpy' 2>/dev/null || die "$PY has no numpy (set PYTHON=)"
HELPER="$PY $HERE/ganns_helper.py"
PATCH="$HERE/ganns.patch"
mkdir -p "$WORK/logs" "$WORK/graphs" || die "cannot create $WORK"
WORK=$(realpath "$WORK"); LOG=${LOG:-$WORK/ganns.log}; touch "$LOG" || die "cannot write $LOG"
export CUDA_MODULE_LOADING=EAGER   # kernels load at start-up, not inside the timed search

S=$($HELPER shape "$BASE") || die "cannot read $BASE"; read -r N DIM <<<"$S"
S=$($HELPER shape "$QUERIES") || die "cannot read $QUERIES"; read -r NQ QDIM <<<"$S"
S=$($HELPER shape "$GT") || die "cannot read $GT"; read -r NGT KGT <<<"$S"
[ "$QDIM" = "$DIM" ] || die "queries have dimension $QDIM, base $DIM"
[ "$NGT" = "$NQ" ] || die "$NGT ground-truth rows for $NQ queries"
[ "$KGT" -ge $K ] || die "ground truth has $KGT neighbours per query, fewer than $K"
# GANNS indexes points and queries with 32-bit ints (id * dim)
[ $((N * DIM)) -lt 2147483648 ] || die "n * dim = $((N * DIM)) >= 2^31: GANNS' int indexing would overflow"
[ -n "$DATASET" ] || DATASET=$(cd "$HERE" && "$PY" -c 'import sys, annio; print(annio.dataset_name(sys.argv[1]))' "$BASE")
say "$DATASET: n=$N dim=$DIM queries=$NQ gt_k=$KGT; log: $LOG"

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
pow2() { local v=1; while [ $v -lt "$1" ]; do v=$((v * 2)); done; echo $v; }
DMIN2=$(pow2 "$DMIN"); DMAX=$((2 * DMIN2)); BM2=$(pow2 "$BUILDM")
[ "$BM2" -ge "$DMAX" ] || die "--build-m $BUILDM: GANNS needs M >= 2 * pow2(d_min) = $DMAX"

# ---- compile -------------------------------------------------------------------------------
if [ -z "$BIN" ]; then
  [ -f "$SRC/src/main.cu" ] || die "GANNS sources not found under $SRC (expected $SRC/src/main.cu). Copy the repository yuyuanhang/GANNS there (see bench/ann/README.md) or pass --src DIR."
  [ -f "$PATCH" ] || die "missing $PATCH"
  NV=${NVCC:-}
  if [ -z "$NV" ]; then
    NV=$(command -v nvcc || true)
    [ -n "$NV" ] || for c in /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do [ -x "$c" ] && { NV=$c; break; }; done
  fi
  [ -n "$NV" ] && [ -x "$NV" ] || die "no nvcc found (PATH, /usr/local/cuda/bin, /usr/local/cuda-*/bin): GANNS must be compiled with the CUDA toolkit; set NVCC=/path/to/nvcc"
  NVV=$("$NV" --version | tail -n 2 | tr '\n' ' ')
  FLAGS="-O3 -std=c++17 -gencode arch=compute_${ARCH},code=sm_${ARCH} -DUSE_DIST_L2_ -DPLACE_HOLDER_DIM=$DIM ${NVCC_FLAGS:-}"
  KEY=$( { cat "$PATCH"; find "$SRC" -type f \( -name '*.h' -o -name '*.cu' \) | sort | xargs cat; echo "$NVV $FLAGS"; } | sha256sum | cut -c1-16)
  BIN="$WORK/bin-$KEY/GANNS"
  if [ -x "$BIN" ]; then
    say "reusing $BIN (same sources, patch, nvcc and flags)"
  else
    say "compiling GANNS with $NV ($NVV) for sm_$ARCH, dim $DIM"
    rm -rf "$WORK/src" "$WORK/bin-$KEY"; mkdir -p "$WORK/src" "$WORK/bin-$KEY"
    cp -r "$SRC/." "$WORK/src/"
    if command -v patch >/dev/null; then
      (cd "$WORK/src" && patch -p1 --forward --batch < "$PATCH") >>"$LOG" 2>&1 || die "ganns.patch does not apply to $SRC (see $LOG): is it GANNS commit 855e2ca?"
    else  # no `patch`: the helper's applier (gives the same tree)
      $HELPER apply-patch "$PATCH" "$WORK/src" >>"$LOG" 2>&1 || die "ganns.patch does not apply to $SRC (see $LOG)"
    fi
    echo "== nvcc $FLAGS" >>"$LOG"
    T0=$(date +%s%N)
    # shellcheck disable=SC2086
    if ! timeout "$CT" "$NV" $FLAGS -o "$BIN.tmp" "$WORK/src/src/main.cu" >>"$LOG" 2>&1; then
      tail -n 30 "$LOG" >&2
      die "compiling GANNS failed or ran past ${CT}s (log above and in $LOG)"
    fi
    mv "$BIN.tmp" "$BIN"
    say "compiled in $(ms_since "$T0") ms: $BIN"
  fi
fi
[ -x "$BIN" ] || die "no GANNS binary at $BIN"
if [ $COMPILE_ONLY -eq 1 ]; then echo "$BIN"; exit 0; fi
if command -v nvidia-smi >/dev/null; then
  nvidia-smi -L >/dev/null 2>&1 || die "nvidia-smi finds no GPU"
  say "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -n 1)"
else
  say "WARNING: no nvidia-smi; trying anyway"
fi

# ---- build graphs and search ------------------------------------------------------------------
FAIL=0
IFS=, read -r -a GLIST <<<"$GRAPHS"
IFS=, read -r -a ELIST <<<"$ES"
for G in "${GLIST[@]}"; do
  case "$G" in nsw|hnsw) ;; *) die "unknown graph type $G (nsw or hnsw)";; esac
  GF="$WORK/graphs/$DATASET-d$DIM-$G-dmin$DMIN-m$BM2.$G"
  BLOG="$WORK/logs/build-$G.log"
  say "building $G graph: d_min=$DMIN (d_max=$DMAX) M=$BM2"
  T0=$(date +%s%N)
  if ! timeout "$BT" "$BIN" -b "$BASE" "$G" "$DMIN" "$BM2" "$GF" >"$BLOG" 2>&1; then
    cat "$BLOG" >>"$LOG"; tail -n 20 "$BLOG" >&2
    say "ERROR: building the $G graph failed or ran past ${BT}s; skipping $G"
    FAIL=1; continue
  fi
  cat "$BLOG" >>"$LOG"
  BSEC=$($HELPER build-seconds "$BLOG") || { FAIL=1; continue; }
  say "$G graph built: $BSEC s (GANNS' timer), process $(ms_since "$T0") ms wall"
  for E in "${ELIST[@]}"; do
    M=$(pow2 "$E"); [ "$M" -ge $K ] || M=$(pow2 $K); [ "$M" -ge "$DMAX" ] || M=$DMAX
    ANN="$WORK/ann-$G-e$E.ivecs"; SLOG="$WORK/logs/search-$G-e$E.log"; rm -f "$ANN"
    if ! GANNS_REPEAT=$REPEAT GANNS_ANN_OUT="$ANN" timeout "$ST" "$BIN" -q "$BASE" "$QUERIES" "$G" "$GF" "$GT" $K "$M" "$E" >"$SLOG" 2>&1; then
      cat "$SLOG" >>"$LOG"; tail -n 10 "$SLOG" >&2
      say "ERROR: $G search e=$E (M=$M) failed or ran past ${ST}s"
      FAIL=1; continue
    fi
    cat "$SLOG" >>"$LOG"
    $HELPER rows --log "$SLOG" --ann "$ANN" --gt "$GT" --system "ganns-$G" --dataset "$DATASET" --n "$N" --dim "$DIM" \
      --build-seconds "$BSEC" --param "$E" --out "$OUTCSV" || FAIL=1
  done
  rm -f "$GF"
done
say "rows appended to $OUTCSV$([ $FAIL -eq 0 ] || echo '; SOME STEPS FAILED, see above and '"$LOG")"
exit $FAIL
