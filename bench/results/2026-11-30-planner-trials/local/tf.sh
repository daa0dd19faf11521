#!/bin/bash
# tf.sh BIN CLASSES... : per query, TF45 in $TFS alternating; writes rows: class q tf elapsed dbg
D=/work/shared/data/wordnet
BIN=$1; shift
for c in "$@"; do for q in $(seq ${FROM:-1} ${TO:-30}); do for tf in ${TFS:-20 3}; do
  f=$D/query_graph/query_${c}_$q.graph
  out=$(DBG45=1 TF45=$tf timeout 20 $BIN match -q --format json --device cpu --threads 1 --timeout 10 $D/data_graph/wordnet.graph $f 2>&1)
  el=$(echo "$out" | grep '^{' | python3 -c "import json,sys; r=json.loads(sys.stdin.read()); print(round(r['elapsed_ms'],2), r['embeddings'])")
  dbg=$(echo "$out" | grep DBG45 | cut -c7- | tr '\n' '|')
  echo "$c $q $tf $el $dbg"
done; done; done
