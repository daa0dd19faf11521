#!/usr/bin/env bash
# LIBMF (github.com/cjlin1/libmf, the CPU peer of `subgraph mf`): build it, train on TRAIN with
# TEST as its validation set, and append one CSV row per iteration
#     system,threads,iter,elapsed_s,tr_rmse,va_rmse
#
#   bench/mf/libmf.sh TRAIN TEST --out CSV [options]
#
# TRAIN, TEST: LIBMF text, one `user item rating` per line, integer ids >= 0 (LIBMF indexes its
# factor arrays with them: m = max user id + 1, n = max item id + 1, no check; negative ids
# corrupt memory, unused ids cost memory and cache). `bench/mf/ratings.py split` (MovieLens ->
# compacted 0-based ids) or `ratings.py compact` write such files. Test users or items without a
# training rating are predicted as the training mean (mf_predict returns the bias b). TEST may
# be `-` (no validation: va_rmse empty, no per-iteration evaluation cost).
# Options (defaults in brackets):
#   -k K                 rank [128]
#   --l2 L               L2 regularisation, -l2 (P and Q; `Lp,Lq` for two) [0.05]
#   --eta R              -r, the initial learning rate of LIBMF's per-coordinate adaptive
#                        (AdaGrad-like) rule [0.1, LIBMF's default]
#   --iters T            iterations (epochs) [20]
#   --threads S          -s [all cores: nproc]
#   --bins N             -n, blocks per side (LIBMF uses max(N, 2S+1); default 20) [LIBMF's]
#   --repeat R           independent runs (rows from each, same system label) [1]
#   --system NAME        the CSV's system column [libmf-avx / libmf-sse]
#   --simd avx|sse       LIBMF's SIMD kernels: -DUSEAVX (256-bit) or -DUSESSE (its Makefile's
#                        default) [avx where the CPU has it, else sse]
#   --src DIR            LIBMF sources (Makefile, mf.cpp, mf-train.cpp) [.peers/libmf, else
#                        /work/peers/libmf]
#   --work DIR           build and logs [/tmp/libmf-work]
#   --bin PATH           use this mf-train instead of building
# Per run, WORK/run-*.json holds the phases (read_s: reading both files; setup_s: shuffle,
# scale, grid, model init; train_s; save_s: writing the text model, which mf-train always does)
# and WORK/libmf.log mf-train's output with time stamps. See libmf_run.py for how iterations
# are timed (stdbuf -oL, each line stamped on arrival; elapsed_s counts from the start of
# training and includes LIBMF's own per-iteration evaluation of TEST).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
die() { echo "libmf.sh: ERROR: $*" >&2; exit 1; }
say() { echo "[libmf $(date +%H:%M:%S)] $*"; }

SRC=""; WORK=/tmp/libmf-work; OUTCSV=""; K=128; L2=0.05; ETA=0.1; ITERS=20
THREADS=$(nproc); BINS=0; REPEAT=1; SYSTEM=""; SIMD=""; BIN=""; POS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUTCSV=$2; shift 2 ;;
    -k|--k) K=$2; shift 2 ;;
    --l2) L2=$2; shift 2 ;;
    --eta) ETA=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --bins) BINS=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --system) SYSTEM=$2; shift 2 ;;
    --simd) SIMD=$2; shift 2 ;;
    --src) SRC=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --bin) BIN=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -) POS+=("$1"); shift ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) POS+=("$1"); shift ;;
  esac
done
[ ${#POS[@]} -eq 2 ] || die "usage: libmf.sh TRAIN TEST --out CSV [options] (see --help)"
[ -n "$OUTCSV" ] || die "--out CSV is required"
TRAIN=$(realpath "${POS[0]}"); [ -s "$TRAIN" ] || die "no such file (or empty): ${POS[0]}"
TEST=""
if [ "${POS[1]}" != "-" ]; then TEST=$(realpath "${POS[1]}"); [ -s "$TEST" ] || die "no such file (or empty): ${POS[1]}"; fi
OUTCSV=$(realpath -m "$OUTCSV")
mkdir -p "$WORK" "$(dirname "$OUTCSV")"
WORK=$(realpath "$WORK")
PY=${PYTHON:-python3}

if [ -z "$SIMD" ]; then
  if grep -qw avx /proc/cpuinfo; then SIMD=avx; else SIMD=sse; fi
fi
case "$SIMD" in
  avx) DFLAG="-DUSEAVX -DUSEOMP" ;;   # the Makefile's CXXFLAGS has -march=native (implies -mavx)
  sse) DFLAG="-DUSESSE -DUSEOMP" ;;
  *) die "--simd must be avx or sse" ;;
esac
[ -n "$SYSTEM" ] || SYSTEM="libmf-$SIMD"

if [ -z "$BIN" ]; then
  if [ -z "$SRC" ]; then
    for d in "$ROOT/.peers/libmf" /work/peers/libmf; do [ -f "$d/mf.cpp" ] && { SRC=$d; break; }; done
  fi
  [ -n "$SRC" ] && [ -f "$SRC/mf.cpp" ] || die "no LIBMF sources (--src DIR; bench/mf/fetch_peers.sh libmf GIT)"
  B="$WORK/build-$SIMD"
  if [ ! -x "$B/mf-train" ] || [ "$SRC/mf.cpp" -nt "$B/mf-train" ]; then
    say "building LIBMF ($SIMD) from $SRC in $B"
    rm -rf "$B" && mkdir -p "$B"
    cp "$SRC"/Makefile "$SRC"/*.cpp "$SRC"/*.h "$B"/
    ( cd "$B" && nice make -j"$(nproc)" DFLAG="$DFLAG" all ) > "$WORK/build-$SIMD.log" 2>&1 \
      || { tail -20 "$WORK/build-$SIMD.log" >&2; die "LIBMF build failed (see $WORK/build-$SIMD.log)"; }
  fi
  BIN="$B/mf-train"
fi
[ -x "$BIN" ] || die "not executable: $BIN"

say "checking inputs"
"$PY" "$HERE/ratings.py" check "$TRAIN" ${TEST:+"$TEST"} || die "bad input (see above)"

for r in $(seq 1 "$REPEAT"); do
  STAMP=$(date +%Y%m%d-%H%M%S)-$r
  say "run $r/$REPEAT: $SYSTEM k=$K l2=$L2 eta=$ETA iters=$ITERS threads=$THREADS"
  "$PY" "$HERE/libmf_run.py" --bin "$BIN" --train "$TRAIN" ${TEST:+--test "$TEST"} \
    --out "$OUTCSV" --meta "$WORK/run-$STAMP.json" --log "$WORK/libmf.log" \
    --system "$SYSTEM" -k "$K" --l2 "$L2" --eta "$ETA" --iters "$ITERS" \
    --threads "$THREADS" --bins "$BINS"
done
say "rows appended to $OUTCSV; phases in $WORK/run-*.json"
