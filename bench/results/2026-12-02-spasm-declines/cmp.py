import json,sys,math
def load(f): return {r['query']:r for r in (json.loads(l) for l in open(f) if l.startswith('{'))}
a,b=load(sys.argv[1]),load(sys.argv[2])
ks=[k for k in a if k in b]
bad=[k for k in ks if a[k]['complete'] and b[k]['complete'] and a[k]['embeddings']!=b[k]['embeddings']]
rat=[b[k]['elapsed_ms']/a[k]['elapsed_ms'] for k in ks]
g=math.exp(sum(map(math.log,rat))/len(rat))
print(f"{len(ks)} queries, count mismatches {len(bad)}, geomean new/base {g:.3f}, sum base {sum(a[k]['elapsed_ms'] for k in ks):.0f} ms new {sum(b[k]['elapsed_ms'] for k in ks):.0f} ms")
worse=sorted(ks,key=lambda k:-(b[k]['elapsed_ms']-a[k]['elapsed_ms']))
print("largest losses:")
for k in worse[:8]: print(f"  {k.split('/')[-1]:28s} {a[k]['elapsed_ms']:8.2f} -> {b[k]['elapsed_ms']:8.2f}  tail {a[k]['tail']}->{b[k]['tail']} {a[k]['order']}->{b[k]['order']}")
print("largest gains:")
for k in worse[::-1][:8]: print(f"  {k.split('/')[-1]:28s} {a[k]['elapsed_ms']:8.2f} -> {b[k]['elapsed_ms']:8.2f}  tail {a[k]['tail']}->{b[k]['tail']} {a[k]['order']}->{b[k]['order']}")
