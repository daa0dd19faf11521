#!/usr/bin/env bash
# Call Y4 on the H200 host, kept as run: where the GPU's written matches spend their time, by
# Nsight Systems (CUDA API, memory copies, kernels, OS runtime) over `new` (Y2's code) writing
# the first 2·10^8 matches of G1 dense_8_1 to /dev/null in binary.
#   bash bench/results/2026-12-01-output-rate/y4.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.gz; do [ -f "$f" ] && gunzip -f "$f"; done
mkdir -p "$O" /tmp/w
exec > >(tee "$O/y4.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader)"
nsys=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${nsys:-none}"
( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5 ) | tail -1
timeout 120 "$b/sg-base" convert /tmp/w/G1.graph /tmp/w/G1.sgb | tail -1
run=("$b/sg-new" match /tmp/w/G1.sgb /tmp/w/G1_q/dense_8_1.graph -q --format json --device gpu --limit 200000000
    --output /dev/null --output-format binary)
timeout 60 "${run[@]}" | python3 -c "import json,sys; d=json.loads(sys.stdin.readline()); print('plain', d['embeddings'], round(d['elapsed_ms']), 'ms')"
if [ -n "$nsys" ]; then
    timeout 200 "$nsys" profile -t cuda,osrt -o /tmp/w/prof --force-overwrite true "${run[@]}" >/dev/null 2>&1
    timeout 200 "$nsys" stats -r cuda_api_sum,cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,osrt_sum \
        /tmp/w/prof.nsys-rep >"$O/nsys-stats.txt" 2>&1
    grep -v "^$" "$O/nsys-stats.txt" | cut -c1-200 | head -90
fi
echo "== done $(date -u +%FT%TZ)"
