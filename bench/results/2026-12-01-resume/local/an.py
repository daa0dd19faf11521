"""an.py AB_OUT [v]: pairs ab.sh's lines per query (min of the rounds); with v, one line per query."""
import gzip,json,sys,collections,math
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for line in (gzip.open(sys.argv[1], "rt") if sys.argv[1].endswith(".gz") else open(sys.argv[1])):
    b,j=line.rstrip('\n').split('\t',1)
    d=json.loads(j); rows[d['query'].split('/')[-1]][b].append(d)
ratios=[]; bad=[]
for q,v in rows.items():
    m=min(x['elapsed_ms'] for x in v['main']); n=min(x['elapsed_ms'] for x in v['new'])
    em={x['embeddings'] for x in v['main'] if x['complete']}; en={x['embeddings'] for x in v['new'] if x['complete']}
    if em and en and em!=en: bad.append(q)
    ratios.append(n/m)
    if len(sys.argv)>2: 
        x=v['new'][0]; print("%-26s main %8.2f new %8.2f  %.2f  %s/%d trial %.2f cmp %.2f probe %.2f spasm %.1f"%(q,m,n,n/m,x['order'],x['tail'],x['trial_ms'],x['compare_ms'],x['probe_ms'],x['spasm_ms']))
print("queries",len(ratios),"geomean new/main %.3f"%math.exp(sum(map(math.log,ratios))/len(ratios)),"mismatch",bad)
