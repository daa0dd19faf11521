import sys, math
rows=[]
for l in open(sys.argv[1]):
    p=l.split()
    q=p[0]; a=p[1].split(','); b=p[2].split(',')
    if len(a)<5 or len(b)<5: print('err',l.strip()); continue
    rows.append((q,float(a[1]),float(a[2]),a[3],a[4],float(b[1]),float(b[2]),b[3],b[4]))
mism=[r for r in rows if r[3]!=r[7] and r[4]=='None' and r[8]=='None']
print('queries',len(rows),'count mismatches',len(mism))
done=[r for r in rows if r[4]=='None' and r[8]=='None']
big=[r for r in done if max(r[1],r[5])>=4]
g=math.exp(sum(math.log(r[5]/r[1]) for r in big)/len(big))
print('both complete, >=4 ms:',len(big),'geomean new/base %.3f'%g)
probed=[r for r in done if r[2]>0 or r[6]>0]
print('with a probe in either:',len(probed))
for r in sorted(probed,key=lambda r:r[5]/r[1])[:25]:
    print('  %-24s base %7.2f (probe %6.2f)  new %7.2f (probe %6.2f)  %.2f' % (r[0][6:],r[1],r[2],r[5],r[6],r[5]/r[1]))
