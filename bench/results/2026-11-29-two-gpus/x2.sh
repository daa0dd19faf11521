#!/bin/bash
# Device call X2 (2026-11-29, ninth session) on nvidia-h200-x2: the rotation (several GPUs alone,
# issue 41) against one GPU and X1's HSGD*; where a two-GPU vector search loses its time (issue
# 40); the server's two-GPU check with its answers printed (issue 43); and, on the host's 32
# cores, the deferred refinement's trial extended by its roots (issue 45) against 6dce58a.
set -u
B=$PWD/.device-bin
exec > >(tee -a $OUT/log.txt) 2>&1
export SUBGRAPH_PTX_CACHE=/tmp/ptx
date -u; nvidia-smi --query-gpu=index,name,memory.used --format=csv,noheader
mkdir -p /tmp/runs /tmp/ann
pack() { tar czf $OUT/runs.tgz -C /tmp runs; }
echo "== mf tests"
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_GPUS=2 timeout 150 $B/mf-gpu-train --test-threads 1 --nocapture two_gpus 2>&1 | grep -E "train and|GPU|test result|panicked|RMSE" | cut -c1-600
echo "== mf: Netflix shape at 2.5e7 ratings, 20 epochs"
timeout 40 $B/subgraph gen ratings --preset netflix --ratings 25000000 --seed 0 --output /tmp/nfq > /dev/null; echo "gen rc $?"
run() { name=$1; D=$2; shift 2; local t0=$(date +%s); timeout ${T:-60} $B/subgraph mf train $D/train.txt --test $D/test.txt --threads 16 --cost-model /tmp/cost.json --format json --lr 0.08 --decay 0.3 "$@" > /tmp/runs/$name.jsonl 2>/tmp/err.txt; echo "[$name rc $? wall $(( $(date +%s)-t0 )) s]"; python3 $B/summ.py /tmp/runs/$name.jsonl $name; grep -i error /tmp/err.txt | tail -1; }
for rep in 1 2; do
  run q-gpu1-$rep /tmp/nfq --epochs 20 --device gpu --gpus 1
  run q-gpu2-$rep /tmp/nfq --epochs 20 --device gpu --gpus 2
done
run q-gpu1-half /tmp/nfq --epochs 20 --device gpu --gpus 1 --half
run q-gpu2-half /tmp/nfq --epochs 20 --device gpu --gpus 2 --half
run q-gpu1-w128 /tmp/nfq --epochs 8 --device gpu --gpus 1 --workers 128
run q-gpu2-w128 /tmp/nfq --epochs 8 --device gpu --gpus 2 --workers 128
run q-auto2 /tmp/nfq --epochs 8 --device auto --gpus 2
pack; rm -rf /tmp/nfq
echo "== mf: the full Netflix shape"
t0=$(date +%s); timeout 90 $B/subgraph gen ratings --preset netflix --seed 0 --output /tmp/nf > /dev/null; echo "gen rc $? $(( $(date +%s)-t0 )) s"
run f-gpu1 /tmp/nf --epochs 8 --device gpu --gpus 1
run f-gpu2 /tmp/nf --epochs 8 --device gpu --gpus 2
run f-gpu1-half /tmp/nf --epochs 8 --device gpu --gpus 1 --half
run f-gpu2-half /tmp/nf --epochs 8 --device gpu --gpus 2 --half
pack; rm -rf /tmp/nf
echo "== ann: where a two-GPU search's time goes (1M x 128, 10,000 queries)"
D=/tmp/ann
timeout 150 $B/subgraph gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 10 --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > /dev/null 2>&1; echo "gen rc $?"
timeout 60 $B/subgraph ann build $D/base.fvecs --output $D/h.sgi --device gpu > /dev/null 2>&1; echo "build rc $?"
for ef in 32 64 128; do timeout 60 $B/two_gpus_probe $D/h.sgi $D/query.fvecs $ef 2>&1 | tail -8; done
echo "== server"
timeout 150 python3 $B/server-gpu-check.py $B/subgraph tests/data/hprd/HPRD.graph 2>&1 | tail -12
echo "== planner (issue 45): wordnet, one thread a query, 30 lanes"
W=/tmp/p45; mkdir -p $W && tar xzf $B/data.tgz -C $W
R=/tmp/runs/p45; mkdir -p $R
lanes() { name=$1; data=$2; t=$3; shift 3
  timeout ${STEP:-150} python3 bench/sunluo-lanes.py --framework $B/fw --data $data --out $R/$name.csv \
    --subgraph base=$B/subgraph-6dce --subgraph new=$B/subgraph --lanes 30 --timeout $t "$@" 2>>$R/err.txt; echo "$name rc $?"; }
lanes heavy-wordnet $W/wordnet/data_graph/wordnet.graph 10 $(ls bench/queries/heavy/wordnet/*.graph | sort -V)
lanes std-wordnet-dense8 $W/wordnet/data_graph/wordnet.graph 5 $(ls $W/wordnet/query_graph/query_dense_8_*.graph | sort -V)
STEP=120 lanes std-yeast-dense24 $W/yeast/data_graph/yeast.graph 5 $(ls $W/yeast/query_graph/query_dense_24_*.graph | sort -V)
python3 bench/sunluo-lanes-summary.py $R/heavy-*.csv 2>&1 | tail -30
python3 bench/sunluo-lanes-summary.py $R/std-*.csv 2>&1 | tail -30
pack; date -u
