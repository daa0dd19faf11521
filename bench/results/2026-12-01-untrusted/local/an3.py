import json,sys,collections,math,re
# probe records per query
pr={}
q=None
for l in open(sys.argv[2]):
    if l.startswith('Q '): q=l.split()[1]; continue
    m=re.search(r'challenger: "(\w+)", challenger_tail: (\d+), default_ms: (Some\(([\d.]+)\)|None), challenger_ms: (Some\(([\d.]+)\)|None), switched: (\w+).*est Some\(\(([\d.]+)',l)
    if m: pr[q]=(m.group(1),int(m.group(2)),float(m.group(4)) if m.group(4) else None,float(m.group(6)) if m.group(6) else None,m.group(7)=='true',float(m.group(8))>0)
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    b,j=line.rstrip('\n').split('\t',1)
    d=json.loads(j); rows[d['query'].split('/')[-1]][b].append(d)
out=[]
for q,(ch,t,dm,cm,sw,rel) in pr.items():
    v=rows[q]; m=min(x['elapsed_ms'] for x in v['main']); n=min(x['elapsed_ms'] for x in v['new'])
    ratio=(cm/dm) if (cm and dm) else None
    out.append((ratio if ratio else -1, q, ch,t, dm, cm, sw, rel, m, n, v['main'][0]['order']+'/'+str(v['main'][0]['tail']), v['new'][0]['order']+'/'+str(v['new'][0]['tail'])))
for r in sorted(out): print("%.2f %-24s %s/%d d=%s c=%s sw=%s rel=%s main %.1f new %.1f  %s -> %s"%r)
