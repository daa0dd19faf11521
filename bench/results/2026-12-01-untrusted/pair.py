"""pair.py DIR: new/base by the geomean per set and class over the queries either binary took 1 ms or more on, with the extremes."""
import csv, math, collections, glob, sys
for f in sorted(glob.glob(sys.argv[1] + '/*.csv')):
    cls = collections.defaultdict(list); every = []
    for r in csv.DictReader(open(f)):
        try:
            b, n = float(r['base_ms']), float(r['new_ms'])
        except ValueError:
            continue
        if b < 1 and n < 1:
            continue
        c = r['query'].split('query_')[-1].rsplit('_', 1)[0]
        cls[c].append(n / b); every.append((n / b, r['query'].split('query_')[-1][:-6], b, n))
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    print(f.split('/')[-1], 'all %.3f (%d)' % (gm([e[0] for e in every]), len(every)),
          ' '.join(f"{c} {gm(v):.3f} ({len(v)})" for c, v in sorted(cls.items())))
    every.sort()
    print('  best:', ', '.join('%s %.0f->%.0f' % w[1:] for w in every[:3]), '| worst:', ', '.join('%s %.0f->%.0f' % w[1:] for w in every[-4:]))
