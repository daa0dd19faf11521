#!/bin/bash
# exall.sh GRAPH PATTERN OUT
g=$1; pat=$2; out=$3; : > $out
for q in $(ls /work/shared/data/$g/query_graph/$pat | sort -V); do
  timeout 60 ./sg-head explain /work/shared/data/$g/data_graph/$g.graph $q --threads 1 --all --format json --timeout 2 >> $out 2>/dev/null
done
