import sys, math, collections
rows=collections.defaultdict(dict)
for l in open(sys.argv[1]):
    p=l.split(' ',5)
    if len(p)<5: continue
    c,q,tf,el,emb=p[:5]
    rows[(c,int(q))][tf]=(float(el),emb,p[5].strip() if len(p)>5 else '')
tfs=sys.argv[2:] if len(sys.argv)>2 else ["20","3"]
a,b=tfs
by=collections.defaultdict(list)
for (c,q),d in sorted(rows.items()):
    if a in d and b in d:
        if d[a][1]!=d[b][1]: print("DIFF",c,q,d[a][:2],d[b][:2]); continue
        by[c].append((q,d[a][0],d[b][0],d[a][2]))
for c,v in by.items():
    g=math.exp(sum(math.log(y/x) for _,x,y,_ in v)/len(v))
    med=lambda xs: sorted(xs)[len(xs)//2]
    print(f"{c:10s} n={len(v)} geomean {b}/{a}={g:.3f} median {med([x for _,x,_,_ in v]):.1f} -> {med([y for _,_,y,_ in v]):.1f}  sum {sum(x for _,x,_,_ in v):.0f} -> {sum(y for _,_,y,_ in v):.0f}")
    for q,x,y,dbg in v:
        if y/x>1.25 or y/x<0.8: print(f"    {q} {x:.1f} -> {y:.1f}  {dbg[:110]}")
