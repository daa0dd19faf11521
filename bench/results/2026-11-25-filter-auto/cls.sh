#!/bin/bash
# usage: cls.sh FILTER N CLASSES...
f=$1; n=$2; shift 2
W=../shared/data/wordnet/data_graph/wordnet.graph
for cls in "$@"; do Q=$(ls /tmp/wn/q/query_${cls}_*.graph | head -$n); ./target/release/subgraph match --threads 1 --limit 100000 --timeout 10 --format json -q --filter $f $W $Q 2>/dev/null | python3 -c "
import sys,json,statistics as st
rs=[json.loads(l) for l in sys.stdin]
print('$cls $f', *(f'{k}={st.median(r[k] for r in rs):.1f}' for k in ('elapsed_ms','filter_ms','space_ms','enumerate_ms')), 'nlf', sum(r['filter']=='nlf' for r in rs))"; done
