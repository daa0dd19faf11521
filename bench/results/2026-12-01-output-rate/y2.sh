#!/usr/bin/env bash
# Call Y2 on the H200 host, kept as run: the GPU engine's written-rows tests on the new code
# (limits and outputs, pieces of two rows through both page-locked buffers, GpSM, FSIG, parked
# tables, every ablation), then written matches per second, `base` (main at ffa4720) against
# `new` (the CPU-side changes of Y1, batches written straight through a writer buffer of one
# batch, standard output's own descriptor and a 1 MiB pipe, and the GPU's next piece copied
# while this one is written), on G1 dense_8_1 and G3 sparse_12_4, GPU and 16-core CPU.
#   bash bench/results/2026-12-01-output-rate/y2.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.gz; do [ -f "$f" ] && gunzip -f "$f"; done
mkdir -p "$O" /tmp/w
exec > >(tee "$O/y2.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
echo "== GPU engine tests"
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 timeout 200 "$b/gpu-engine-test" limits_outputs gpsm_equals fsig_equals \
    parked_tables random_graphs_equal 2>&1 | grep -E "^test |test result|panicked" ; echo "tests rc=${PIPESTATUS[0]}"
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
    --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
    sparse:12:4 ) | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G1.graph /tmp/w/G1.sgb | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G3.graph /tmp/w/G3.sgb | tail -1
S2="base=$b/sg-base new=$b/sg-new"
G1q=/tmp/w/G1_q/dense_8_1.graph G3q=/tmp/w/G3_q/sparse_12_4.graph
show() { python3 -c "
import csv,sys
for r in list(csv.reader(open(sys.argv[1])))[1:]: print(' '.join(r[:4]), r[5], r[6], 'ms', r[7], '/s', r[8], '% CPU')" "$1"; }
echo "== GPU, /dev/null"
SYSTEMS=$S2 FLAGS="--device gpu" LIMIT=500000000 FORMATS=binary ROUNDS=2 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-null-bin" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-null-bin.csv"
SYSTEMS=$S2 FLAGS="--device gpu" LIMIT=500000000 FORMATS=text ROUNDS=1 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-null-text" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-null-text.csv"
SYSTEMS=$S2 FLAGS="--device gpu" LIMIT=500000000 FORMATS=binary ROUNDS=1 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g3-null-bin" /tmp/w/G3.sgb $G3q >/dev/null; show "$O/g3-null-bin.csv"
echo "== GPU, pipe (dd bs=1M) and file (/tmp/w, ext4)"
SYSTEMS=$S2 FLAGS="--device gpu" LIMIT=200000000 FORMATS="binary text" SINKS="pipe file" FILE_DIR=/tmp/w TIMEOUT=60 \
    timeout 300 bash bench/output-rate.sh "$O/g1-sinks" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-sinks.csv"
echo "== CPU, 16 threads"
SYSTEMS=$S2 FLAGS="--device cpu --threads 16" LIMIT=100000000 FORMATS="binary text" TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/cpu16-g1" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/cpu16-g1.csv"
SYSTEMS=$S2 FLAGS="--device cpu --threads 16" LIMIT=100000000 FORMATS="binary text" TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/cpu16-g3" /tmp/w/G3.sgb $G3q >/dev/null; show "$O/cpu16-g3.csv"
echo "== done $(date -u +%FT%TZ)"
