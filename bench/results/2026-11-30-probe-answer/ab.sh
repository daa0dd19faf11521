#!/bin/bash
# A/B: base then new, query by query, one thread, counting; prints query, then per binary: elapsed, probe, embeddings, stopped
G=$1; shift
for q in "$@"; do
  line="$(basename $q .graph)"
  for b in base probe; do
    out=$(/tmp/subgraph-$b match $G $q --threads 1 --device cpu --format json --timeout 3 2>/dev/null | head -1)
    line="$line $(echo "$out" | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print('%s,%.2f,%.2f,%s,%s' % ('$b', d['elapsed_ms'], d.get('probe_ms',0), d['embeddings'], d.get('stopped')))" 2>/dev/null || echo "$b,err")"
  done
  echo "$line"
done
