import json,subprocess,sys,statistics as st,os
# usage: ab.py DATA "QUERYGLOB-list-file" reps name1:bin1:flags1 name2:bin2:flags2 ...
data=sys.argv[1]; qs=open(sys.argv[2]).read().split(); reps=int(sys.argv[3])
confs=[c.split(':',2) for c in sys.argv[4:]]
res={c[0]:{} for c in confs}
for r in range(reps):
    for name,b,flags in confs:
        out=subprocess.run([b,'match','-q','--format','json','--threads','1','--timeout','20']+flags.split()+[data]+qs,capture_output=True,text=True).stdout
        for l in out.splitlines():
            j=json.loads(l); q=os.path.basename(j['query'])
            d=res[name].setdefault(q,{})
            for k in ['elapsed_ms','space_ms','enumerate_ms','filter_ms']:
                d[k]=min(d.get(k,1e18),j[k])
            d['emb']=j['embeddings']
base=confs[0][0]
for name,_,_ in confs:
    bad=[q for q in res[name] if res[name][q]['emb']!=res[base][q]['emb']]
    print(name,'count mismatches',len(bad), {k:round(st.median(v[k] for v in res[name].values()),2) for k in ['elapsed_ms','space_ms','enumerate_ms','filter_ms']}, 'sum elapsed',round(sum(v['elapsed_ms'] for v in res[name].values()),1),
      'median ratio vs base', round(st.median(res[base][q]['elapsed_ms']/res[name][q]['elapsed_ms'] for q in res[name]),3))
if os.environ.get('PERQ'):
    a=res[confs[0][0]]; b=res[confs[1][0]]
    rows=sorted(a, key=lambda q: b[q]['enumerate_ms']-a[q]['enumerate_ms'])
    for q in rows[-12:]: print(q, {k:(round(a[q][k],3), round(b[q][k],3)) for k in ['elapsed_ms','enumerate_ms','space_ms']})
