import json,sys,collections,math
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    b,j=line.rstrip('\n').split('\t',1)
    d=json.loads(j); rows[d['query'].split('/')[-1]][b].append(d)
groups=collections.defaultdict(list)
for q,v in rows.items():
    m=min(x['elapsed_ms'] for x in v['main']); n=min(x['elapsed_ms'] for x in v['new'])
    xm=v['main'][0]; xn=v['new'][0]
    pm=(xm['order'],xm['tail']); pn=(xn['order'],xn['tail'])
    if xn['compare_ms']==0: g='no comparison'
    elif pm!=pn: g='plan changed'
    elif xn['probe_ms']>0 and xm['probe_ms']==0: g='same plan, new probe'
    elif xn['probe_ms']>0: g='same plan, probed both'
    else: g='same plan, no probe'
    groups[g].append((n/m,q,m,n,pm,pn))
for g,l in groups.items():
    gm=math.exp(sum(math.log(r[0]) for r in l)/len(l))
    print(f"{g:25s} {len(l):4d} geomean {gm:.3f}  sum main {sum(r[2] for r in l):.0f} new {sum(r[3] for r in l):.0f}")
    if len(sys.argv)>2 and g==sys.argv[2]:
        for r in sorted(l): print("   %.2f %s %.1f %.1f %s %s"%r)
