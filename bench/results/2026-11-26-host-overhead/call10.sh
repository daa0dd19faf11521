#!/usr/bin/env bash
# Device call 10: is `--device auto` slower than `--device cpu` on 50-µs queries because of
# cuInit (auto asks the driver for its devices at the start)? hprd and yeast dense_4 under the
# 10^5 limit, eight rounds of: cpu, auto, auto with CUDA_VISIBLE_DEVICES= (cuInit finds no
# device, so auto runs the CPU with a note).
set -u
O=$OUT; R=/tmp/r10; mkdir -p $R/sets
S=.device-bin/sets; sg=.device-bin/subgraph
for k in 1 2 3 4 5 6 7 8; do
  for g in hprd yeast; do
    qs=$(ls $S/$g/queries/query_dense_4_*.graph | sort -V | head -n 20)
    timeout 60 $sg match -q --format json --device cpu --limit 100000 $S/$g/$g.graph $qs > $R/sets/$g-dense_4-cpu-$k.jsonl 2>/dev/null
    timeout 60 $sg match -q --format json --device auto --limit 100000 $S/$g/$g.graph $qs > $R/sets/$g-dense_4-auto-$k.jsonl 2>/dev/null
    CUDA_VISIBLE_DEVICES= timeout 60 $sg match -q --format json --device auto --limit 100000 $S/$g/$g.graph $qs > $R/sets/$g-dense_4-nodev-$k.jsonl 2>/dev/null
  done
done
tar czf $O/call10.tgz -C $R .
