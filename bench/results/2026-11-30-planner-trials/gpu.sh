#!/usr/bin/env bash
# The third device call of 2026-11-30 (issue 45): the GPU's plans and counts before (sg-base,
# 3af051d) and after (sg-new, 412c63b's planner) on G1 (bigraph_gen.py as bench/gpu-bench.sh
# generates it, `--device gpu`) and the heavy set (`--device gpu` and `--device auto`). Run
# from the repository root with .device-bin carried (sg-base, sg-new, bigraph_gen.py,
# data.tgz); everything comes back in $OUT/gpu.tgz.
set -uo pipefail
b=$PWD/.device-bin
res=/tmp/gpu
mkdir -p $res
[ -d $b/data ] || tar xzf $b/data.tgz -C $b
nvidia-smi --query-gpu=name,driver_version --format=csv >$res/host.txt 2>&1
(cd /tmp && timeout 300 python3 $b/bigraph_gen.py graph --scale 20 --edge-factor 16 --labels 32 \
    --alpha 1.0 --seed 11 --output G1.graph --queries G1_q --query-seed 5 dense:8:5 sparse:8:5) >>$res/host.txt 2>&1
$b/sg-new convert /tmp/G1.graph /tmp/G1.sgb >>$res/host.txt 2>&1
$b/sg-new gen graph --model rmat --vertices 16384 --edges 262144 --vertex-labels 32 --label-dist uniform \
    --seed 5 --output /tmp/rmat16k.graph >>$res/host.txt 2>&1
# Each run starts only within the first 480 s, so that the results are packed before the call's limit.
for v in base new; do
    # shellcheck disable=SC2046
    [ $SECONDS -lt 480 ] && timeout 150 $b/sg-$v match -q --format json --device gpu --timeout 30 /tmp/G1.sgb $(ls /tmp/G1_q/*.graph | sort -V) \
        >$res/g1-gpu-$v.jsonl 2>>$res/host.txt
    for d in gpu auto; do
        for g in yeast hprd wordnet rmat16k; do
            [ $SECONDS -lt 480 ] || continue
            data=$b/data/$g/data_graph/$g.graph
            [ $g = rmat16k ] && data=/tmp/rmat16k.graph
            # shellcheck disable=SC2046
            timeout 100 $b/sg-$v match -q --format json --device $d --timeout 10 "$data" \
                $(ls bench/queries/heavy/$g/*.graph | sort -V)
        done >$res/heavy-$d-$v.jsonl 2>>$res/host.txt
    done
done
tar czf "${OUT:-/tmp/out}/gpu.tgz" -C /tmp gpu
