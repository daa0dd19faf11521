#!/bin/bash
# Device call M1 (issue 41): halves against HSGD* and each device alone at 64..all workers
# (10 epochs, Netflix shape 2.5e7), the GPU tests of hybrid schedules, and time to target
# over 100 epochs with the plain-load kernel beside CuMF_SGD.
set -u
B=$PWD/.device-bin/subgraph; S=$PWD/.device-bin/summ.py
exec > >(tee -a $OUT/log.txt) 2>&1
pack() { tar czf $OUT/runs.tgz -C /tmp runs; }
date -u; nproc; mkdir -p /tmp/runs
echo "== GPU tests"; SUBGRAPH_REQUIRE_GPU=1 timeout 200 .device-bin/mf-gpu-train --test-threads 1 --nocapture halves hsgd 2>&1 | grep -v "^$" | tail -20
timeout 60 $B gen ratings --preset netflix --ratings 25000000 --seed 0 --output /tmp/nfq
D=/tmp/nfq
run() { name=$1; shift; timeout ${T:-100} $B mf train $D/train.txt --test $D/test.txt --threads 16 --cost-model /tmp/cost.json --format json "$@" > /tmp/runs/$name.jsonl 2>/tmp/err.txt; python3 $S /tmp/runs/$name.jsonl $name; grep -i error /tmp/err.txt | tail -1; }
E10="--epochs 10 --lr 0.08 --decay 0.3"
run cpu --device cpu $E10
for w in 64 128 256 512 0; do
  run gpu-w$w --device gpu --workers $w $E10
  run halves-w$w --device hybrid --schedule halves --workers $w $E10
done
for w in 128 0; do run star-w$w --device hybrid --workers $w $E10; done
pack; echo "== 100 epochs"
E100="--epochs 100 --lr 0.08 --decay 0.3"
run gpu100 --device gpu $E100
run gpu100-half --device gpu --half $E100
run halves100 --device hybrid --schedule halves $E100
run halves100-half --device hybrid --schedule halves --half $E100
run halves100-w128 --device hybrid --schedule halves --workers 128 $E100
pack
echo "== CuMF_SGD 100"; shuf --random-source=<(yes) $D/train.txt > /tmp/nfq-shuf.txt; timeout 200 bash bench/mf/cumf_sgd.sh /tmp/nfq-shuf.txt $D/test.txt --out $OUT/cumf100.csv --iters 100 --src .peers/cumf_sgd --work /tmp/cumf 2>&1 | tail -2
pack; cp /tmp/cost.json $OUT/; date -u
