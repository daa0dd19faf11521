#!/usr/bin/env bash
# Call Y5 on the H200 host, kept as run: Y2's code with timers (not committed) around the
# GPU's emit: the time in emit, in the page-locked downloads (DMA and their synchronisation)
# and in the formatting and writing of each piece, summed over a run, for G1 dense_8_1 and G3
# sparse_12_4 writing their first 2·10^8 matches to /dev/null, binary and text.
#   bash bench/results/2026-12-01-output-rate/y5.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.gz; do [ -f "$f" ] && gunzip -f "$f"; done
mkdir -p "$O" /tmp/w
exec > >(tee "$O/y5.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader)"
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
    --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
    sparse:12:4 ) | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G1.graph /tmp/w/G1.sgb | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G3.graph /tmp/w/G3.sgb | tail -1
for q in "G1.sgb G1_q/dense_8_1.graph" "G3.sgb G3_q/sparse_12_4.graph"; do
    for f in binary text; do
        set -- $q
        timeout 60 "$b/sg-trace" match "/tmp/w/$1" "/tmp/w/$2" -q --format json --device gpu --limit 200000000 \
            --output /dev/null --output-format "$f" >/tmp/w/r.json 2>/tmp/w/err
        echo "$2 $f: $(grep TRACE /tmp/w/err | tail -1) elapsed_ms $(python3 -c "import json; print(round(json.load(open('/tmp/w/r.json'))['elapsed_ms']))")"
        grep TRACE /tmp/w/err | awk '{print $6}' | sort -n | awk '{a[NR]=$1} END {print "  rows per emit: calls", NR, "min", a[1], "median", a[int(NR/2)+1], "max", a[NR]}'
    done
done
echo "== done $(date -u +%FT%TZ)"
