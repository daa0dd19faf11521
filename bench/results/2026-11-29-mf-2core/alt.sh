#!/bin/bash
# Interleaved rounds on the 2-core VM: ours (fixed gamma with decay; and --adaptive) against LIBMF AVX, 2 threads, ML-1M split-s42.
S=/work/data/movielens/ml-1m/split-s42; B=/work/main/target/release/subgraph; O=/tmp/mf2
cd /work/main
for r in 1 2 3 4 5; do
  $B mf train $S/train.txt --test $S/test.txt --device cpu --threads 2 --epochs 30 --lr 0.05 --decay 0.1 --format json > $O/ours-fixed-$r.jsonl 2>/dev/null
  bash bench/mf/libmf.sh $S/train.txt $S/test.txt --out $O/libmf.csv --threads 2 --iters 30 --simd avx --system libmf-r$r > /dev/null 2>&1
  $B mf train $S/train.txt --test $S/test.txt --device cpu --threads 2 --epochs 30 --adaptive --lr 0.1 --format json > $O/ours-adaptive-$r.jsonl 2>/dev/null
done
