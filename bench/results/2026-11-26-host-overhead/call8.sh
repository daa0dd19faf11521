#!/usr/bin/env bash
# Device call 8: `--device auto` opening the GPU lazily (only when a query first goes there).
# The devices and device test executables; `--device auto` against `--device cpu` (three
# rounds each, alternated) and `--device gpu` (one round) on every Sun & Luo class under the
# 10^5 limit; G3 complete under cpu (one round), gpu and auto (two); the CLI's stderr under auto.
set -u
O=$OUT; R=/tmp/r8; mkdir -p $R/sets $R/g3
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
for t in devices device; do
  timeout 100 .device-bin/tests/$t > $R/test-$t.txt 2>&1; echo "$t exit $?" >> $R/tests.txt
done
S=.device-bin/sets; sg=.device-bin/subgraph
for k in 1 2 3; do
  for g in yeast hprd wordnet; do
    for c in $(ls $S/$g/queries | sed 's/query_\(.*\)_[0-9]*\.graph/\1/' | sort -u); do
      qs=$(ls $S/$g/queries/query_${c}_*.graph | sort -V | head -n 20)
      devs="cpu auto"; [ $k = 1 ] && devs="cpu auto gpu"
      for dev in $devs; do
        timeout 120 $sg match -q --format json --device $dev --timeout 3 --limit 100000 $S/$g/$g.graph $qs \
          > $R/sets/$g-$c-$dev-$k.jsonl 2>/dev/null
      done
    done
  done
  tar czf $O/call8.tgz -C $R .
done
OUT=$R/gen timeout 120 bench/gpu-bench.sh g3-graph > $R/gen.txt 2>&1
qs=$(ls /tmp/G3_q/*.graph | sort -V)
for k in 1 2; do
  devs="gpu auto"; [ $k = 1 ] && devs="cpu gpu auto"
  for dev in $devs; do
    timeout 100 $sg match -q --format json --device $dev --timeout 10 /tmp/G3.sgb $qs > $R/g3/g3-$dev-$k.jsonl 2>/dev/null
  done
done
timeout 60 $sg match --device auto --limit 1000 $S/yeast/yeast.graph $S/yeast/queries/query_dense_8_1.graph > $R/cli-auto-yeast.txt 2>&1
timeout 60 $sg match --device auto /tmp/G3.sgb /tmp/G3_q/dense_8_1.graph /tmp/G3_q/dense_8_2.graph > $R/cli-auto-g3.txt 2>&1
tar czf $O/call8.tgz -C $R .
