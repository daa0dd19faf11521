#!/usr/bin/env bash
# Issue 42 on the 2-core VM: triangles over 1 and 2 processes of 2 threads, ours before (BASE)
# and after (NEW) the replicas' sorted, batched exchange, beside Delta-BiGJoin on its best input
# (degree-oriented), ROUNDS rounds (default 3) alternated; then, unless CLIQUES=0, 4-cliques
# over 1 and 2 processes, ours only. TIMEOUT (default 400 s) bounds each run: unpatched, BiGJoin's
# two processes now and then never end.
#   bash run.sh BASE NEW BIGJOIN_EXAMPLES PREP OUT   (PREP made by `bench/cluster/bigjoin.sh prepare`)
set -u
BASE=$1 NEW=$2 BJ=$3 PREP=$4 OUT=$5
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../../.." && pwd)
mkdir -p "$OUT"
run() { GRAPHS=rmat16 PATTERNS="$1" THREADS=2 PROCS=2 BIGJOIN_VARIANT=delta SYSTEMS="$2" \
  PARTITION_ARGS="--vertex-order degree" TIMEOUT=${TIMEOUT:-400} LOGS=$OUT/logs bash "$ROOT/bench/cluster/bigjoin.sh" run "$PREP" "$BJ" "$3"; }
for round in $(seq "${ROUNDS:-3}"); do
  run triangle subgraph "$BASE" | sed "s/^subgraph /base /;s/$/ round$round/"
  run triangle subgraph "$NEW" | sed "s/^subgraph /new /;s/$/ round$round/"
  run triangle bigjoin-dag "$NEW" | sed "s/$/ round$round/"
done | grep --line-buffered -v "^system" | tee "$OUT/triangles.txt"
[ "${CLIQUES:-1}" = 0 ] && exit 0
for b in base new; do X=$BASE; [ $b = new ] && X=$NEW
  GRAPHS=rmat16 PATTERNS=clique4 THREADS=2 PROCS=2 SYSTEMS=subgraph PARTITION_ARGS="--vertex-order degree" TIMEOUT=400 \
    LOGS=$OUT/logs bash "$ROOT/bench/cluster/bigjoin.sh" run "$PREP" "$BJ" "$X" | grep -v "^system" | sed "s/^subgraph /$b /"
done | tee "$OUT/clique4.txt"
