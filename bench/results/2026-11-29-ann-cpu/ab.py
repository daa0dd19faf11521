#!/usr/bin/env python3
# ab.py EF N NAME=CMD ...  : alternate single batches N times; median wall/cpu QPS and paired ratios to the first
import json, subprocess, sys, statistics as st
ef, n = int(sys.argv[1]), int(sys.argv[2])
sv = []
for spec in sys.argv[3:]:
    name, cmd = spec.split("=", 1)
    p = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    th = json.loads(p.stdout.readline())["threads"]
    sv.append((name, p, th))
res = {s[0]: [] for s in sv}
for i in range(n):
    order = sv[i % len(sv):] + sv[:i % len(sv)]
    for name, p, th in order:
        p.stdin.write(f"{ef} 1 {256 if i == 0 else 64}\n"); p.stdin.flush()
        d = json.loads(p.stdout.readline())
        res[name].append((d["queries"] / d["wall"][0], d["queries"] * th / d["cpu"][0], d["recall"]))
for name, p, th in sv:
    p.stdin.close(); p.wait()
first = sv[0][0]
for name in res:
    w = [r[0] for r in res[name]]; c = [r[1] for r in res[name]]
    rw = [a[0] / b[0] for a, b in zip(res[name], res[first])]; rc = [a[1] / b[1] for a, b in zip(res[name], res[first])]
    print(f"{name:<12} ef {ef} recall {res[name][0][2]:.4f}  wall {st.median(w):8.0f} (max {max(w):6.0f})  cpu {st.median(c):8.0f} (max {max(c):6.0f})  "
          f"ratio to {first}: wall {st.median(rw):.3f} [{min(rw):.2f}-{max(rw):.2f}] cpu {st.median(rc):.3f} [{min(rc):.2f}-{max(rc):.2f}]")
