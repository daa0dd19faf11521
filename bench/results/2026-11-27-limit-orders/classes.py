#!/usr/bin/env python3
"""Per class: median, timeouts and sum of elapsed_ms of each JSONL file (.gz too), and the median of per-query ratios of the first to the second.

    classes.py A.jsonl B.jsonl"""
import gzip,json,sys,re,statistics as st
from collections import defaultdict
def load(p): return {json.loads(l)['query']:json.loads(l) for l in (gzip.open(p,'rt') if p.endswith('.gz') else open(p))}
names=sys.argv[1:]
ds=[load(p) for p in names]
cls=defaultdict(list)
for q in ds[0]:
    m=re.search(r'data/(\w+)/query_graph/query_(\w+?_\d+)_\d+',q); cls[(m.group(1),m.group(2))].append(q)
print('class', *[f'{n.split("/")[-1]}: med / to / sum' for n in names], 'med ratio 2nd/1st')
for k in sorted(cls, key=lambda k:(k[0],k[1].split('_')[0],int(k[1].split('_')[1]))):
    qs=cls[k]
    cols=[]
    for d in ds:
        t=[d[q]['elapsed_ms'] for q in qs]
        cols.append('%8.1f %2d %7.0f'%(st.median(t), sum(d[q].get('stopped')=='timeout' for q in qs), sum(t)))
    r=st.median(ds[0][q]['elapsed_ms']/ds[1][q]['elapsed_ms'] for q in qs) if len(ds)>1 else 0
    print('%-8s %-10s'%k, ' | '.join(cols), '%.2f'%r)
