import json,statistics,sys
ours={json.loads(l)['query'].split('/')[-1]:json.loads(l) for l in open(sys.argv[1])}
fw={}
for l in open(sys.argv[2]):
    p=l.split()
    if len(p)==6: fw[p[0]]=list(map(float,p[1:]))
print('fw medians filter/build/enum/total', [round(statistics.median(v[i] for v in fw.values()),1) for i in range(4)])
for k in ['elapsed_ms','filter_ms','order_ms','space_ms','enumerate_ms']: print(k, round(statistics.median(r[k] for r in ours.values()),2), round(sum(r[k] for r in ours.values()),1))
rows=[]
for q,r in ours.items():
    if q in fw:
        f=fw[q]; rows.append((round(r['enumerate_ms']/max(f[2],0.05),2), q, round(r['enumerate_ms'],1), round(f[2],1), round(r['elapsed_ms'],1), round(f[3],1), r['order'], r['tail'], r['filter'], r['embeddings']))
rows.sort(reverse=True)
for x in rows[:int(sys.argv[3]) if len(sys.argv)>3 else 10]: print(x)
print('ratio total median', round(statistics.median(fw[q][3]/ours[q]['elapsed_ms'] for q in ours if q in fw),3))
