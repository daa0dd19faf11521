#!/bin/bash
# ab.sh BIN "ENV_A" "ENV_B" CLASSES... ; rows: class q variant(a|b) elapsed emb dbg
D=${D:-/work/shared/data/wordnet}; G=${G:-wordnet}
BIN=$1; A=$2; B=$3; shift 3
for c in "$@"; do for q in $(seq ${FROM:-1} ${TO:-30}); do for v in a b; do
  [ $v = a ] && E=$A || E=$B
  f=$D/query_graph/query_${c}_$q.graph
  out=$(env DBG45=1 $E timeout 20 $BIN match -q --format json --device cpu --threads 1 --timeout 10 ${EXTRA:-} $D/data_graph/$G.graph $f 2>&1)
  el=$(echo "$out" | grep '^{' | python3 -c "import json,sys; r=json.loads(sys.stdin.read()); print(round(r['elapsed_ms'],2), r['embeddings'])")
  dbg=$(echo "$out" | grep DBG45 | cut -c7- | tr '\n' '|')
  echo "$c $q $v $el $dbg"
done; done; done
