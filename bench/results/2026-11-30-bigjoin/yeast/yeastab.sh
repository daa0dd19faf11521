S=/work/main/target/release/subgraph
for q in /work/main/bench/queries/heavy/yeast/*.graph; do
  for g in /work/main/tests/data/yeast/yeast.graph /tmp/bj/yeastdeg.graph; do
    r=$(timeout 60 $S match $g $q --threads 2 --device cpu --timeout 20 --format json -q 2>/dev/null)
    echo "$(basename $q) $(basename $g) $(echo "$r" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print("%.1f %s %s mult %s tail %s spasm %.1f" % (r["elapsed_ms"], r["embeddings"], r["complete"], r.get("multiplier"), r.get("tail"), r.get("spasm_ms") or 0))' 2>/dev/null)"
  done
done
