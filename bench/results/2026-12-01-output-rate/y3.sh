#!/usr/bin/env bash
# Call Y3 on the H200 host, kept as run: `new5` (Y2's `new`, plus the GPU's formatting tasks
# writing 1 MiB at a time, 2^15 embeddings each, slices of 2^22 between looks at the stop flags)
# against `base` (main at ffa4720) and Y2's `new`, G1 dense_8_1 and G3 sparse_12_4 on the GPU.
#   bash bench/results/2026-12-01-output-rate/y3.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.gz; do [ -f "$f" ] && gunzip -f "$f"; done
mkdir -p "$O" /tmp/w
exec > >(tee "$O/y3.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
    --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
    sparse:12:4 ) | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G1.graph /tmp/w/G1.sgb | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G3.graph /tmp/w/G3.sgb | tail -1
S3="base=$b/sg-base new=$b/sg-new new5=$b/sg-new5"
G1q=/tmp/w/G1_q/dense_8_1.graph G3q=/tmp/w/G3_q/sparse_12_4.graph
show() { python3 -c "
import csv,sys
for r in list(csv.reader(open(sys.argv[1])))[1:]: print(' '.join(r[:5]), r[5], r[6], 'ms', r[7], '/s', r[8], '% CPU')" "$1"; }
echo "== GPU, /dev/null"
SYSTEMS=$S3 FLAGS="--device gpu" LIMIT=500000000 FORMATS=binary ROUNDS=2 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-null-bin" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-null-bin.csv"
SYSTEMS=$S3 FLAGS="--device gpu" LIMIT=500000000 FORMATS=text ROUNDS=1 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-null-text" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-null-text.csv"
SYSTEMS=$S3 FLAGS="--device gpu" LIMIT=500000000 FORMATS=binary ROUNDS=1 TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g3-null-bin" /tmp/w/G3.sgb $G3q >/dev/null; show "$O/g3-null-bin.csv"
echo "== GPU, pipe (dd bs=1M)"
SYSTEMS=$S3 FLAGS="--device gpu" LIMIT=200000000 FORMATS="binary" SINKS="pipe" TIMEOUT=60 \
    timeout 200 bash bench/output-rate.sh "$O/g1-pipe" /tmp/w/G1.sgb $G1q >/dev/null; show "$O/g1-pipe.csv"
echo "== reports of new5"
for q in "/tmp/w/G1.sgb $G1q" "/tmp/w/G3.sgb $G3q"; do
    # shellcheck disable=SC2086
    timeout 60 "$b/sg-new5" match $q -q --format json --device gpu --limit 500000000 --output /dev/null \
        --output-format binary >>"$O/reports.jsonl"
done
python3 -c "
import json
for l in open('$O/reports.jsonl'):
    d=json.loads(l); print({k: v for k, v in d.items() if k.startswith('gpu') or k in ('embeddings','elapsed_ms','multiplier','order','tail')})"
echo "== done $(date -u +%FT%TZ)"
