#!/usr/bin/env bash
# CuMF_SGD (Xie, Tan, Fong, Liang, HPDC 2017; github.com/uiuc-cumf/cumf_sgd, the GPU peer of
# `subgraph mf`): build it for sm_90 with cumf_sgd.patch, convert TRAIN/TEST to its binary
# format, train, and append one CSV row per epoch
#     system,workers,iter,elapsed_s,test_rmse
#
#   bench/mf/cumf_sgd.sh TRAIN TEST --out CSV [options]
#
# TRAIN, TEST: LIBMF text `user item rating` with ids >= 0 (compacted: `ratings.py split` or
# `ratings.py compact`), converted here with `ratings.py cumf-bin` (int32 u, int32 v, float32 r,
# little endian, no header), or files already in that format (names ending in .bin). TEST may
# be `-` (no test RMSE). Test ratings whose user or item has no training rating are predicted
# as the training mean, as LIBMF does.
# Options (defaults in brackets):
#   --l2 L               -l, L2 regularisation of P and Q (`Lp,Lq` for two) [0.05]
#   --alpha A --beta B   learning rate of epoch t (from 0): A / (1 + B t^1.5) [0.08, 0.3: the
#                        values of upstream's Netflix script]
#   --iters T            epochs, 1..1000 [20]
#   --workers N          -s, parallel workers (one warp each; rounded up to a multiple of 4;
#                        thread blocks of 4 warps); 0 = 52 per SM, upstream README's advice
#                        (H200: 132 SMs -> 6864) [0]
#   --workers-near N     the worker count nearest N (multiple of 4) for which an epoch is
#                        within 512 x c updates of nnz (c = updates per worker, see below)
#   --gpu G              device [0]
#   --persistent         upstream's single kernel launch for all epochs (one total time, the
#                        test RMSE once at the end: rows only with iter = T) [per-epoch launches]
#   --repeat R           runs [1]
#   --system NAME        the CSV's system column [cumf_sgd]
#   --src DIR            a copy of the repository (singleGPU/ at least) [.peers/cumf_sgd, else
#                        /work/peers/cumf_sgd]
#   --work DIR           patched sources, build, binary data, logs [/tmp/cumf-work]
#   --arch N             compute capability [90]
#   --bin PATH           use this (patched) cumf_sgd binary instead of building
#   --compile-only       stop after building (prints the binary's path)
#   --timeout S          per run [1800]
# Environment: NVCC (else PATH, /usr/local/cuda/bin, /usr/local/cuda-*/bin); NVCC_EXTRA (extra
# nvcc flags, e.g. -allow-unsupported-compiler, -I/-L for a nonstandard toolkit); PYTHON
# [python3; numpy makes the conversion faster]; CUMF_SEED (host shuffles; the GPU's curand
# states are seeded from clock() as upstream, so runs are not reproducible).
#
# Rank is 128, fixed: the kernels map a 128-vector onto a warp (4 values per lane). Factors are
# stored in half precision (always; upstream has no float option), arithmetic is float.
# elapsed_s: host wall time of the epoch kernels (launch to cudaDeviceSynchronize), summed; the
# test RMSE after each epoch is computed on the GPU between epochs and is not in elapsed_s
# (its time is in the log, eval_s). Reading, shuffling, gridding, model init and the
# host-to-device copy are logged as phases in WORK/run-*.json.
# An epoch is workers x 128 x ceil(nnz / (workers x 128)) updates at random positions
# (batch-Hogwild!): more than nnz when nnz is not a multiple of workers x 128, e.g. ml-1m's 0.9M
# training ratings with 6864 workers gives 1.95 x nnz per "epoch"; the log's
# updates_per_epoch says how many (keep nnz / (workers x 128) large, or compare by updates).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
die() { echo "cumf_sgd.sh: ERROR: $*" >&2; exit 1; }
say() { echo "[cumf_sgd $(date +%H:%M:%S)] $*"; }

SRC=""; WORK=/tmp/cumf-work; OUTCSV=""; L2=0.05; ALPHA=0.08; BETA=0.3; ITERS=20; WORKERS=0
NEAR=0; GPU=0; PERSIST=0; REPEAT=1; SYSTEM=cumf_sgd; ARCH=90; BIN=""; COMPILE_ONLY=0; TMO=1800; POS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUTCSV=$2; shift 2 ;;
    --l2) L2=$2; shift 2 ;;
    --alpha) ALPHA=$2; shift 2 ;;
    --beta) BETA=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --workers) WORKERS=$2; shift 2 ;;
    --workers-near) NEAR=$2; shift 2 ;;
    --gpu) GPU=$2; shift 2 ;;
    --persistent) PERSIST=1; shift ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --system) SYSTEM=$2; shift 2 ;;
    --src) SRC=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --arch) ARCH=$2; shift 2 ;;
    --bin) BIN=$2; shift 2 ;;
    --compile-only) COMPILE_ONLY=1; shift ;;
    --timeout) TMO=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -) POS+=("$1"); shift ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) POS+=("$1"); shift ;;
  esac
done
mkdir -p "$WORK"; WORK=$(realpath "$WORK")
PY=${PYTHON:-python3}
PATCH="$HERE/cumf_sgd.patch"

# ---- build
if [ -z "$BIN" ]; then
  if [ -z "$SRC" ]; then
    for d in "$ROOT/.peers/cumf_sgd" /work/peers/cumf_sgd; do [ -f "$d/singleGPU/sgd.cu" ] && { SRC=$d; break; }; done
  fi
  [ -n "$SRC" ] && [ -f "$SRC/singleGPU/sgd.cu" ] || die "no CuMF_SGD sources (--src DIR with singleGPU/; bench/mf/fetch_peers.sh cumf_sgd GIT)"
  if [ -z "${NVCC:-}" ]; then
    NVCC=$(command -v nvcc || true)
    if [ -z "$NVCC" ]; then
      for c in /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do [ -x "$c" ] && { NVCC=$c; break; }; done
    fi
  fi
  [ -n "${NVCC:-}" ] && [ -x "$NVCC" ] || die "no nvcc (set NVCC=)"
  # the kernels use cuRAND's device API (header-only; no -lcurand): the toolkit must have it
  echo '#include <curand_kernel.h>' | "$NVCC" ${NVCC_EXTRA:-} -x cu -E - -o /dev/null 2>/dev/null \
    || die "$NVCC finds no curand_kernel.h (the toolkit's cuRAND headers; add -I to NVCC_EXTRA)"
  S="$WORK/src"
  rm -rf "$S" && mkdir -p "$S"
  cp -r "$SRC/singleGPU" "$S/"
  [ -f "$SRC/README.md" ] && cp "$SRC/README.md" "$S/"
  if command -v patch >/dev/null; then
    ( cd "$S" && patch -p1 --forward --quiet < "$PATCH" ) || die "cumf_sgd.patch does not apply to $SRC"
  else
    ( cd "$S" && git apply --whitespace=nowarn "$PATCH" ) || die "cumf_sgd.patch does not apply to $SRC (no patch(1); git apply failed)"
  fi
  say "building with $NVCC ($("$NVCC" --version | tail -1)), sm_$ARCH"
  ( cd "$S/singleGPU" && timeout 900 make -j3 NVCC="$NVCC" ARCH="$ARCH" NVCC_EXTRA="${NVCC_EXTRA:-}" cumf_sgd ) \
    > "$WORK/build.log" 2>&1 || { grep -v 'ptxas info\|bytes stack frame' "$WORK/build.log" | tail -30 >&2; die "build failed (see $WORK/build.log)"; }
  BIN="$S/singleGPU/cumf_sgd"
fi
[ -x "$BIN" ] || die "not executable: $BIN"
if [ $COMPILE_ONLY -eq 1 ]; then echo "$BIN"; exit 0; fi

# ---- data
[ ${#POS[@]} -eq 2 ] || die "usage: cumf_sgd.sh TRAIN TEST --out CSV [options] (see --help)"
[ -n "$OUTCSV" ] || die "--out CSV is required"
OUTCSV=$(realpath -m "$OUTCSV"); mkdir -p "$(dirname "$OUTCSV")"
to_bin() {  # TEXT -> cached .bin path on stdout
  local f; f=$(realpath "$1"); [ -s "$f" ] || die "no such file (or empty): $1"
  case "$f" in *.bin) echo "$f"; return ;; esac
  local key; key=$(stat -c '%s-%Y' "$f")
  local b="$WORK/data/$(basename "$f" .txt)-$(echo "$f" | md5sum | cut -c1-8)-$key.bin"
  mkdir -p "$WORK/data"
  if [ ! -s "$b" ]; then
    "$PY" "$HERE/ratings.py" cumf-bin "$f" "$b.tmp" >&2 || die "conversion of $f failed"
    mv "$b.tmp" "$b"
  fi
  echo "$b"
}
TRB=$(to_bin "${POS[0]}")
TEB=""; [ "${POS[1]}" = "-" ] || TEB=$(to_bin "${POS[1]}")
if [ "$NEAR" -gt 0 ]; then
  WORKERS=$("$PY" -c '
import math, os, sys
nnz = os.path.getsize(sys.argv[1]) // 12; n = int(sys.argv[2])
c = max(1, round(nnz / (128 * n)))
print(4 * math.ceil(nnz / (128 * c * 4)))' "$TRB" "$NEAR")
  say "--workers-near $NEAR: $WORKERS workers"
fi

# ---- runs
for r in $(seq 1 "$REPEAT"); do
  STAMP=$(date +%Y%m%d-%H%M%S)-$r
  LOG="$WORK/run-$STAMP.log"
  ARGS=(-g "$GPU" -l "$L2" -a "$ALPHA" -b "$BETA" -s "$WORKERS" -k 128 -t "$ITERS" -u 1 -v 1 -x 1 -y 1)
  [ -n "$TEB" ] && ARGS+=(-p "$TEB")
  [ $PERSIST -eq 1 ] && ARGS+=(--persistent)
  ARGS+=("$TRB" -)
  say "run $r/$REPEAT: $BIN ${ARGS[*]}"
  set +e
  timeout "$TMO" "$BIN" "${ARGS[@]}" > "$LOG" 2>&1
  rc=$?
  set -e
  [ $rc -eq 0 ] || { tail -30 "$LOG" >&2; die "cumf_sgd failed (exit $rc; log $LOG)"; }
  "$PY" - "$LOG" "$OUTCSV" "$SYSTEM" "$WORK/run-$STAMP.json" "$PERSIST" "$ITERS" <<'EOF'
import csv, json, os, sys
log, out, system, meta_path, persist, iters = sys.argv[1:7]
workers, rows, phases, info = None, [], {}, {}
for line in open(log, errors="replace"):
    f = line.split()
    if line.startswith("num_workers:"):
        workers = int(line.split(":")[1])
    elif f[:1] == ["epoch"] and len(f) >= 7:
        d = dict(zip(f[0::2], f[1::2]))
        rows.append((int(d["epoch"]), float(d["elapsed_s"]), d["test_rmse"], float(d["epoch_s"]),
                     float(d["eval_s"])))
    elif f[:1] == ["phase"] and len(f) == 3:
        phases[f[1]] = float(f[2])
    elif f[:1] in (["workers"], ["test_nnz"], ["device"], ["train_mean"]):
        info[f[0]] = " ".join(f[1:])
    elif f[:1] == ["final_test_rmse"]:
        info["final_test_rmse"] = f[1]
if persist == "1":
    rows = [(int(iters), phases.get("train_s", float("nan")), info.get("final_test_rmse", "nan"),
             None, None)]
if not rows:
    sys.exit("cumf_sgd.sh: no epoch lines in " + log)
new = not os.path.exists(out) or os.path.getsize(out) == 0
with open(out, "a", newline="") as fh:
    w = csv.writer(fh)
    if new:
        w.writerow(["system", "workers", "iter", "elapsed_s", "test_rmse"])
    for it, el, rm, _, _ in rows:
        w.writerow([system, workers, it, "%.6f" % el, "" if rm in ("nan", "-nan") else rm])
json.dump({"log": log, "workers": workers, "phases": phases, "info": info,
           "epochs": [{"iter": it, "elapsed_s": el, "test_rmse": rm, "epoch_s": es, "eval_s": ev}
                      for it, el, rm, es, ev in rows]}, open(meta_path, "w"), indent=1)
best = [(float(rm), it) for it, _, rm, _, _ in rows if rm not in ("nan", "-nan")]
print("cumf_sgd: %d epochs, %.3f s training%s; %s" % (
    len(rows), rows[-1][1], "; best test_rmse %.4f at epoch %d" % min(best) if best else "",
    "workers " + info.get("workers", "?")))
EOF
done
say "rows appended to $OUTCSV; logs and phases in $WORK/run-*"
