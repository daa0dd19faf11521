import json,sys,statistics as st,glob,re
d=sys.argv[1]; variants=sys.argv[2].split(",")
res={}
for v in variants:
    for f in sorted(glob.glob(f"{d}/g3-{v}-*.jsonl")):
        for l in open(f):
            r=json.loads(l); q=r["query"].split("/")[-1].replace(".graph","")
            res.setdefault((v,q),[]).append(r)
qs=sorted({q for (_,q) in res}, key=lambda q:(q.split("_")[0],int(q.split("_")[1]),int(q.split("_")[2])))
print("query", *[f"{v:>8s}" for v in variants], "  (elapsed median of runs; new: f/o/u/j)")
cls={}
for q in qs:
    row=[]
    for v in variants:
        rs=res.get((v,q),[])
        m=st.median(r["elapsed_ms"] for r in rs); row.append(m)
        cls.setdefault((v,q.rsplit("_",1)[0]),[]).append(m)
    r=res[(variants[-1],q)][0]
    print(f"{q:12s}", *[f"{m:8.2f}" for m in row], f'  {st.median(x["filter_ms"] for x in res[(variants[-1],q)]):.2f}/{st.median(x["order_ms"] for x in res[(variants[-1],q)]):.2f}/{st.median(x["upload_ms"] for x in res[(variants[-1],q)]):.2f}/{st.median(x["join_ms"] for x in res[(variants[-1],q)]):.2f}', r["embeddings"])
print("class medians")
for c in ["dense_8","sparse_8","dense_12","sparse_12"]:
    print(f"{c:12s}", *[f"{st.median(cls[(v,c)]):8.2f}" for v in variants])
# counts equal
for q in qs:
    e={r["embeddings"] for v in variants for r in res[(v,q)]}
    if len(e)>1: print("COUNT MISMATCH",q,e)
