import json,sys
# planning = elapsed - filter - space - enumerate; the rule: enumeration < 20 ms -> planning <= 10% or <= 0.5 ms
for f in sys.argv[1:]:
    rows=[json.loads(l) for l in open(f) if l.startswith('{')]
    miss=[]; n=0
    for r in rows:
        e=r['enumerate_ms']
        plan=r['elapsed_ms']-r['filter_ms']-r['space_ms']-e
        if e<20:
            n+=1
            if plan>0.5 and plan>0.1*r['elapsed_ms']:
                miss.append((plan,e,r))
    miss.sort(key=lambda m:-m[0])
    print(f"{f}: {len(rows)} queries, {n} with enumeration <20 ms, {len(miss)} miss")
    for plan,e,r in miss[:40]:
        q=r['query'].split('/')[-1].replace('query_','').replace('.graph','')
        print(f"  {q:18s} plan {plan:7.2f} enum {e:6.2f} spasm {r['spasm_ms']:6.2f} trial {r['trial_ms']:5.2f} cmp {r['compare_ms']:5.2f} probe {r['probe_ms']:5.2f} order {r['order_ms']:5.2f} tail {r['tail']}")
