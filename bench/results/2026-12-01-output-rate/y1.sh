#!/usr/bin/env bash
# Call Y1 on the H200 host, kept as run: written matches per second (issue 44, "Writing
# matches") before (`base`, main at ffa4720) and after the CPU-side changes (`new`: expansions
# listed once on the CPU, the limit taken in batches, itoa; `new2`: also standard output's pipe
# widened to 1 MiB), on G1 dense_8_1 and G3 sparse_12_4, GPU and 16-core CPU.
#   bash bench/results/2026-12-01-output-rate/y1.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.gz; do [ -f "$f" ] && gunzip -f "$f"; done
mkdir -p "$O" /tmp/w
exec > >(tee "$O/y1.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
df -h /tmp | tail -1; findmnt -T /tmp -o SOURCE,FSTYPE | tail -1
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
    --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
    sparse:12:4 ) | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G1.graph /tmp/w/G1.sgb
timeout 120 "$b/sg-base" convert /tmp/w/G3.graph /tmp/w/G3.sgb
S3="base=$b/sg-base new=$b/sg-new new2=$b/sg-new2"
G1q=/tmp/w/G1_q/dense_8_1.graph G3q=/tmp/w/G3_q/sparse_12_4.graph
ls /tmp/w/G1_q /tmp/w/G3_q | head -3
echo "== count only, breadth first to the end (the join's own rate)"
for s in base new; do
    for q in "/tmp/w/G1.sgb $G1q" "/tmp/w/G3.sgb $G3q"; do
        # shellcheck disable=SC2086
        timeout 60 "$b/sg-$s" match $q -q --format json --device gpu --limit 500000000 --gpu-dfs off --tail off --spasm off \
            | python3 -c "import json,sys; d=json.loads(sys.stdin.readline()); print('$s', '${q##*/}', d['embeddings'], round(d['elapsed_ms']), 'ms')"
    done
done
echo "== GPU, /dev/null"
SYSTEMS=$S3 FLAGS="--device gpu" LIMIT=500000000 FORMATS=binary ROUNDS=2 TIMEOUT=60 \
    timeout 300 bash bench/output-rate.sh "$O/g1-null-bin" /tmp/w/G1.sgb $G1q | tail -6
SYSTEMS=$S3 FLAGS="--device gpu" LIMIT=100000000 FORMATS=text ROUNDS=1 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-null-text" /tmp/w/G1.sgb $G1q | tail -3
SYSTEMS=$S3 FLAGS="--device gpu" LIMIT=200000000 FORMATS=binary ROUNDS=1 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g3-null-bin" /tmp/w/G3.sgb $G3q | tail -3
echo "== GPU, pipe and file"
SYSTEMS=$S3 FLAGS="--device gpu" LIMIT=100000000 FORMATS="binary text" SINKS="pipe file" FILE_DIR=/tmp/w TIMEOUT=60 \
    timeout 300 bash bench/output-rate.sh "$O/g1-sinks" /tmp/w/G1.sgb $G1q | tail -12
echo "== CPU, 16 threads"
SYSTEMS="base=$b/sg-base new=$b/sg-new" FLAGS="--device cpu --threads 16" LIMIT=100000000 FORMATS="binary text" \
    TIMEOUT=60 timeout 200 bash bench/output-rate.sh "$O/cpu16-g1" /tmp/w/G1.sgb $G1q | tail -4
SYSTEMS="base=$b/sg-base new=$b/sg-new" FLAGS="--device cpu --threads 16" LIMIT=100000000 FORMATS="binary text" \
    TIMEOUT=60 timeout 200 bash bench/output-rate.sh "$O/cpu16-g3" /tmp/w/G3.sgb $G3q | tail -4
echo "== done $(date -u +%FT%TZ)"
