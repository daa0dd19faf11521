#!/usr/bin/env bash
# Device call 3 of 2026-11-26-lazy-space: one thread against one thread of the Sun & Luo
# framework (GQL, GQL, LFTJ, failing sets; built as in 2026-11-26-plan-probe.md and carried as
# .device-bin/SubgraphMatching.out) under the protocol's 10^5 limit, the first 200 queries of
# every class up to 20 vertices of wordnet, yeast and hprd, 5 s per query, one class per
# process, 12 classes at a time on the 16-core host (both matchers share the host the same
# way); then ours alone with `--space eager` on wordnet (the ablation).
set -u
O=$OUT; R=/tmp/r3; mkdir -p $R
B=.device-bin
jobs=()
for c in dense_4 dense_8 dense_12 dense_16 dense_20 sparse_8 sparse_12 sparse_16 sparse_20; do jobs+=("wordnet $c"); done
for d in yeast hprd; do for c in dense_4 dense_8 dense_16 sparse_8 sparse_16; do jobs+=("$d $c"); done; done
run() {
  set -- $1
  qs=$(ls $B/sets/$1/queries/query_$2_*.graph | sort -V | head -n 200)
  LIMIT=100000 TIMEOUT=5 SUBGRAPH=$B/subgraph bench/sunluo.sh $B/SubgraphMatching.out $B/sets/$1/$1.graph \
    $R/$1-$2.csv $qs > /dev/null 2>&1
}
export -f run; export B R
start=$SECONDS
printf '%s\n' "${jobs[@]}" | timeout 480 xargs -P 12 -I{} bash -c 'run "{}"'
echo "protocol: $((SECONDS - start)) s"
tar czf $O/call3.tgz -C $R .
for c in dense_4 dense_8 dense_12 dense_16 dense_20 sparse_8 sparse_12 sparse_16 sparse_20; do
  echo "wordnet $c"
done | timeout 90 xargs -P 9 -I{} bash -c 'set -- {}; $B/subgraph match -q --format json --threads 1 --limit 100000 --timeout 5 --space eager $B/sets/$1/$1.graph $(ls $B/sets/$1/queries/query_$2_*.graph | sort -V | head -n 200) > $R/eager-$1-$2.jsonl 2>/dev/null'
tar czf $O/call3.tgz -C $R .
