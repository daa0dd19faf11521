import json,glob,statistics as st,sys,os,collections
d=sys.argv[1]
# --best: each query's best run per device (each process on the lent host runs either fast or
# about 40 % slow throughout, so a median over three processes depends on how many were slow)
pick=min if "--best" in sys.argv else st.median
rows=collections.defaultdict(dict)  # (g,c) -> dev -> query -> [ms]
counts=collections.defaultdict(dict)
for f in glob.glob(f"{d}/sets/*.jsonl"):
    b=os.path.basename(f)[:-6]
    g,rest=b.split("-",1)
    c,dev,k=rest.rsplit("-",2)
    for l in open(f):
        if not l.startswith("{"): continue
        r=json.loads(l); q=os.path.basename(r["query"])
        rows[(g,c)].setdefault(dev,{}).setdefault(q,[]).append(r["elapsed_ms"] if r.get("stopped")!="timeout" else float("inf"))
        counts[(g,c,q)].setdefault(dev,set()).add(r["embeddings"])
print("| set | class | cpu median ms | gpu median ms | auto median ms | median of auto / min(cpu, gpu) | worst query |")
print("|---|---|---:|---:|---:|---:|---:|")
over=0
for (g,c) in sorted(rows, key=lambda x:(x[0],x[1].split("_")[0],int(x[1].split("_")[1]))):
    R=rows[(g,c)]
    qs=sorted(R["auto"])
    med=lambda dev,q: pick(R[dev][q])
    ratios=[]
    for q in qs:
        best=min(med(dev,q) for dev in ("cpu","gpu") if dev in R)
        ratios.append((med("auto",q)/best, q))
    m=st.median(r for r,_ in ratios)
    over+= m>1.2
    w=max(ratios)
    cm=st.median(med("cpu",q) for q in qs); gm=st.median(med("gpu",q) for q in qs) if "gpu" in R else float("nan"); am=st.median(med("auto",q) for q in qs)
    print(f"| {g} | {c} | {cm:.3f} | {gm:.3f} | {am:.3f} | {m:.2f} | {w[0]:.2f} ({w[1].replace('query_','').replace('.graph','')}) |")
print("classes over 1.2:", over)
mism=[k for k,v in counts.items() if len(set().union(*[s for dv,s in v.items()]))>1]
print("count mismatches (any device, stopped runs included):", len(mism), mism[:5])
