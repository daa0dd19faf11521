#!/usr/bin/env bash
# Call Z1 on the H200 host (issue 44, "Writing matches"), kept as run: the GPU engine's
# written-rows tests on the new code, the rows written by base and new compared, then written
# matches per second, `base` (main at 364a7d2) against `new` (a writer thread per query takes
# the downloaded tables while the join goes on; binary rows gathered without a call per
# embedding), on G1 dense_8_1 and G3 sparse_12_4 on the GPU.
#   bash bench/results/2026-12-01-writer/z1.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out} R=bench/results/2026-12-01-writer
for f in "$b"/*.gz; do [ -f "$f" ] && gunzip -f "$f"; done
chmod +x "$b"/*
mkdir -p "$O" /tmp/w
exec > >(tee "$O/z1.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
echo "== GPU engine tests"
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 200 "$b/gpu-engine-test" limits_outputs gpsm_equals fsig_equals \
    parked_tables restricted_queries 2>&1 | grep -E "^test |test result|panicked" ; echo "tests rc=${PIPESTATUS[0]}"
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
    --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
    sparse:12:4 ) | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G1.graph /tmp/w/G1.sgb | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G3.graph /tmp/w/G3.sgb | tail -1
G1q=/tmp/w/G1_q/dense_8_1.graph G3q=/tmp/w/G3_q/sparse_12_4.graph
echo "== the same rows: base and new, first 5,000,000 (G1) and 2,000,000 (G3), binary; new on one thread"
for s in base new; do
  for g in "G1 $G1q 5000000" "G3 $G3q 2000000"; do set -- $g
    timeout 60 "$b/sg-$s" match /tmp/w/$1.sgb $2 --device gpu -q --limit $3 --output-format binary --output /tmp/w/rows.bin \
      > /dev/null; echo "$s $1 rc=$? $(python3 $R/rows.py /tmp/w/rows.bin)"; done
done
timeout 60 "$b/sg-new" match /tmp/w/G1.sgb $G1q --device gpu -q --threads 1 --limit 5000000 --output-format binary \
  --output /tmp/w/rows.bin > /dev/null; echo "new --threads 1 G1 rc=$? $(python3 $R/rows.py /tmp/w/rows.bin)"
rm -f /tmp/w/rows.bin
S2="base=$b/sg-base new=$b/sg-new"
show() { python3 -c "
import csv,sys
for r in list(csv.reader(open(sys.argv[1])))[1:]: print(' '.join(r[:4]), r[5], r[6], 'ms', r[7], '/s', r[8], '% CPU')" "$1"; }
echo "== GPU, /dev/null"
SYSTEMS=$S2 FLAGS="--device gpu" LIMIT=500000000 FORMATS=binary ROUNDS=2 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-null-bin" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-null-bin.csv"
SYSTEMS=$S2 FLAGS="--device gpu" LIMIT=500000000 FORMATS=binary ROUNDS=1 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g3-null-bin" /tmp/w/G3.sgb $G3q >/dev/null; show "$O/g3-null-bin.csv"
SYSTEMS=$S2 FLAGS="--device gpu" LIMIT=200000000 FORMATS=text ROUNDS=1 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-null-text" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-null-text.csv"
SYSTEMS="new=$b/sg-new" FLAGS="--device gpu" LIMIT=200000000 FORMATS=text ROUNDS=1 TIMEOUT=60 \
    timeout 100 bash bench/output-rate.sh "$O/g3-null-text" /tmp/w/G3.sgb $G3q >/dev/null; show "$O/g3-null-text.csv"
echo "== GPU, pipe (dd bs=1M)"
SYSTEMS=$S2 FLAGS="--device gpu" LIMIT=200000000 FORMATS="binary" SINKS="pipe" TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-pipe" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-pipe.csv"
echo "== done $(date -u +%FT%TZ)"
