#!/bin/bash
cd /work/main
for g in wordnet yeast hprd rmat16k; do
  case $g in wordnet) D=../shared/data/wordnet/data_graph/wordnet.graph;; yeast) D=../shared/data/yeast/data_graph/yeast.graph;; hprd) D=../shared/data/hprd/data_graph/hprd.graph;; rmat16k) D=bench/work/rmat16k.graph;; esac
  for b in base auto; do /tmp/sg-$b match --threads 1 --timeout 30 --format json -q $D bench/queries/heavy/$g/*.graph 2>/dev/null > /tmp/heavy-$g-$b.jsonl; done
done
echo done
