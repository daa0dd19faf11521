#!/usr/bin/env bash
# Call X2 on the H200 host, kept as run: G1 (gMatch's generator, 2^20 vertices, 32 power-law
# labels; the graph of the issue "Heavy queries") with its 10 queries, `--vertex-order degree`
# against `file` on the GPU, with the defaults and with the spasm and counted tails off (what
# a user who lists matches gets; issue 44).
#   bash bench/results/2026-12-01-vertex-order/x2.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin S=$b/subgraph O=${OUT:-/tmp/out}
export SUBGRAPH=$S
mkdir -p "$O" /tmp/w
exec > >(tee "$O/x2.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
( cd /tmp/w && timeout 300 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -2
timeout 120 $S convert /tmp/w/G1.graph /tmp/w/G1.sgb
qs=$(ls /tmp/w/G1_q/*.graph | sort -V)
# shellcheck disable=SC2086
FLAGS="--device gpu -q" ROUNDS=1 TIMEOUT=10 timeout 250 bash bench/vertex-order.sh /tmp/w/G1-gpu /tmp/w/G1.sgb $qs | tail -14
# shellcheck disable=SC2086
FLAGS="--device gpu -q --spasm off --tail off" ROUNDS=1 TIMEOUT=5 timeout 150 bash bench/vertex-order.sh /tmp/w/G1-gpu-enum /tmp/w/G1.sgb $qs | tail -14
cd /tmp/w && tar czf "$O/x2.tgz" G1-gpu G1-gpu-enum
echo "== done $(date -u +%FT%TZ)"
