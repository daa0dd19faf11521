#!/bin/bash
# Device call 3 (issue 41): HSGD* with stealing after the fix (rows ceded for the epoch), then
# 100 epochs of every system on the Netflix-shaped set for time to target, then the full
# Netflix shape (1e8) for ours and CuMF_SGD.
set -u
B=$PWD/.device-bin/subgraph; S=$PWD/.device-bin/summ.py
exec > >(tee -a $OUT/log.txt) 2>&1
pack() { tar czf $OUT/runs.tgz -C /tmp runs; }
date -u; mkdir -p /tmp/runs; cp .device-bin/cost.json $OUT/cost.json
timeout 60 $B gen ratings --preset netflix --ratings 25000000 --seed 0 --output /tmp/nfq
D=/tmp/nfq
run() { name=$1; shift; timeout ${T:-100} $B mf train $D/train.txt --test $D/test.txt --threads 16 --cost-model $OUT/cost.json --format json "$@" > /tmp/runs/$name.jsonl 2>/tmp/err.txt; python3 $S /tmp/runs/$name.jsonl $name; grep -i error /tmp/err.txt | tail -1; }
E10="--epochs 10 --lr 0.08 --decay 0.3"
for w in 64 128 256 0; do run star-w$w --device hybrid --workers $w $E10; done
run auto-w0 --device auto $E10
run auto-w128 --device auto --workers 128 $E10
pack; echo "== 100 epochs"
E100="--epochs 100 --lr 0.08 --decay 0.3"
run gpu100 --device gpu $E100
run gpu100-half --device gpu --half $E100
T=150 run cpu100 --device cpu $E100
T=150 run cpu100-adaptive --device cpu --epochs 100 --lr 0.1 --adaptive
T=100 run star100-w128 --device hybrid --workers 128 $E100
echo "== LIBMF 100"; timeout 150 bash bench/mf/libmf.sh $D/train.txt $D/test.txt --out $OUT/libmf100.csv --threads 16 -k 128 --l2 0.05 --iters 100 --simd avx --system libmf-avx-16 --src .peers/libmf --work /tmp/libmf 2>&1 | tail -2
echo "== CuMF_SGD 100"; shuf --random-source=<(yes) $D/train.txt > /tmp/nfq-shuf.txt; timeout 150 bash bench/mf/cumf_sgd.sh /tmp/nfq-shuf.txt $D/test.txt --out $OUT/cumf100.csv --iters 100 --src .peers/cumf_sgd --work /tmp/cumf 2>&1 | tail -2
pack; cp /tmp/libmf/libmf.log $OUT/ 2>/dev/null; echo "== full Netflix shape"; rm -f /tmp/nfq-shuf.txt
timeout 120 $B gen ratings --preset netflix --seed 0 --output /tmp/nf
D=/tmp/nf; T=120 run nf-gpu --device gpu --epochs 20 --lr 0.08 --decay 0.3
T=120 run nf-gpu-half --device gpu --half --epochs 20 --lr 0.08 --decay 0.3
shuf --random-source=<(yes) $D/train.txt > /tmp/nf-shuf.txt; timeout 200 bash bench/mf/cumf_sgd.sh /tmp/nf-shuf.txt $D/test.txt --out $OUT/cumf-nf.csv --iters 20 --src .peers/cumf_sgd --work /tmp/cumf 2>&1 | tail -2
pack; date -u
