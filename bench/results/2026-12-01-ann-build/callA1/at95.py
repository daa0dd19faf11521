import re, math, sys
def at(pts, r=0.95):
    for (e0,r0,q0),(e1,r1,q1) in zip(pts, pts[1:]):
        if r0 <= r <= r1:
            f=(r-r0)/(r1-r0); return math.exp(math.log(q0)+f*(math.log(q1)-math.log(q0)))
for f in sys.argv[1:]:
    res={}; builds={}
    for l in open(f):
        m=re.match(r'build (\S+) warm rc 0 "build_seconds":([0-9.]+)', l)
        if m: builds[m.group(1)]=float(m.group(2))
        m=re.match(r'(g\S+) (half|single) (\d) rc 0 (.*)', l)
        if not m: continue
        pts=[tuple(float(x) for x in t.split(',')) for t in m.group(4).split()]
        res.setdefault((m.group(1),m.group(2)),[]).append(at(pts))
    for k,v in sorted(res.items()): print(f.split('/')[-2], k, 'build %.2f s' % builds.get(k[0],0), ' '.join('%.2fM(%.1fx)' % (x/1e6, x/77894) for x in v))
