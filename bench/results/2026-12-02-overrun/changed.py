import json,sys,math
def load(f): return {r['query']:r for r in (json.loads(l) for l in open(f) if l.startswith('{'))}
for s in sys.argv[2:]:
    a,b=load(f'{sys.argv[1]}-0-{s}.jsonl'),load(f'{sys.argv[1]}-1-{s}.jsonl')
    ks=[k for k in a if k in b]
    ch=[k for k in ks if (a[k]['order'],a[k]['tail'])!=(b[k]['order'],b[k]['tail']) or a[k]['complete']!=b[k]['complete'] or abs(a[k]['compare_ms']-b[k]['compare_ms'])>0.5]
    rat=[b[k]['elapsed_ms']/a[k]['elapsed_ms'] for k in ch]
    g=math.exp(sum(map(math.log,rat))/len(rat)) if rat else 1
    allr=[b[k]['elapsed_ms']/a[k]['elapsed_ms'] for k in ks]
    ga=math.exp(sum(map(math.log,allr))/len(allr))
    inc=[k for k in ks if a[k]['complete']!=b[k]['complete']]
    print(f"{s}: {len(ks)} queries (geomean {ga:.3f}), {len(ch)} with another plan or comparison: geomean {g:.3f}, sum {sum(a[k]['elapsed_ms'] for k in ch):.0f} -> {sum(b[k]['elapsed_ms'] for k in ch):.0f} ms; completeness changed {[(k.split('/')[-1],a[k]['complete'],b[k]['complete']) for k in inc]}; >2x slower {sum(r>2 for r in rat)}, >2x faster {sum(r<0.5 for r in rat)}")
