#!/bin/bash
cd /work/main
out=/tmp/wn-sets; mkdir -p $out
for cls in dense_4 dense_8 dense_12 dense_16 dense_20 sparse_8 sparse_12 sparse_16 sparse_20; do
  Q=$(ls /tmp/wn/q/query_${cls}_*.graph | sort -V | head -200)
  SUBGRAPH=/tmp/sg-auto LIMIT=100000 TIMEOUT=10 bench/sunluo.sh /tmp/slbin/SubgraphMatching.out ../shared/data/wordnet/data_graph/wordnet.graph $out/wordnet-$cls.csv $Q
done
python3 bench/sunluo-summary.py $out/*.csv > $out/summary.md
echo done
