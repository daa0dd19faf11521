#!/usr/bin/env bash
# Session 2026-11-25b call 2: 16-core scaling, old (071704e) and new binaries interleaved run by run,
# 5 repetitions per thread count, fixed plan (--order gql --tail off); CSV binary,query,threads,rep,embeddings,enumerate_ms,elapsed_ms.
set -uo pipefail
b=.device-bin
o=$OUT/r; mkdir -p $o
echo "binary,query,threads,rep,embeddings,enumerate_ms,elapsed_ms" > $o/scaling-reps.csv
for pair in wordnet/query_dense_12_9 wordnet/query_dense_8_3 rmat16k/query_dense_10_3 yeast/query_sparse_10_6; do
  g=${pair%%/*}; d=$b/sets/$g/$g.graph; [ "$g" = rmat16k ] && d=$b/rmat16k.graph
  q=$b/heavy-queries/$pair.graph
  for t in 1 2 4 8 16; do
    for rep in 1 2 3 4 5; do
      for v in subgraph-old subgraph; do
        line=$($b/$v match -q --format json --device cpu --threads $t --order gql --tail off $d $q)
        emb=$(sed -n 's/.*"embeddings":\([0-9]*\).*/\1/p' <<<"$line")
        ems=$(sed -n 's/.*"enumerate_ms":\([0-9.e+-]*\).*/\1/p' <<<"$line")
        ms=$(sed -n 's/.*"elapsed_ms":\([0-9.e+-]*\).*/\1/p' <<<"$line")
        echo "$v,$(basename $q),$t,$rep,$emb,$ems,$ms" >> $o/scaling-reps.csv
      done
    done
  done
done
tar czf $OUT/call2.tgz -C $OUT r && rm -rf $o
