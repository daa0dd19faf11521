"""Replays the 200 HPRD oracle queries against a running `subgraph serve` (one graph, `hprd`):
first one client, each query once, its round trip against the record's elapsed_ms; then
CLIENTS threads for SECONDS, every answer's count checked against expected_output.res.
Prints one JSON object. Usage: serve_load.py URL DATA_DIR CLIENTS SECONDS"""
import json, sys, threading, time, urllib.request, urllib.error, pathlib, statistics

url, data, clients, seconds = sys.argv[1], pathlib.Path(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
expected = {}
for line in (data / "expected_output.res").read_text().split():
    name, count = line.rsplit(":", 1)
    expected[name] = int(count)
queries = [(p.stem, p.read_text()) for p in sorted((data / "queries").glob("*.graph"))]

def ask(text):
    body = json.dumps({"query": text}).encode()
    req = urllib.request.Request(url + "/v1/graphs/hprd/match", data=body, headers={"Content-Type": "application/json"})
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            rec = json.loads(r.read())
            return 200, rec, (time.perf_counter() - t) * 1e3
    except urllib.error.HTTPError as e:
        return e.code, None, (time.perf_counter() - t) * 1e3

single = []
wrong = 0
for name, text in queries:
    code, rec, ms = ask(text)
    if code != 200 or rec["embeddings"] != expected[name]:
        wrong += 1
    else:
        single.append((ms, rec["elapsed_ms"]))
over = [ms - el for ms, el in single]
out = {"single": {"queries": len(queries), "wrong": wrong,
                  "round_trip_ms_median": statistics.median(ms for ms, _ in single),
                  "elapsed_ms_median": statistics.median(el for _, el in single),
                  "over_elapsed_ms_median": statistics.median(over),
                  "over_elapsed_ms_p90": sorted(over)[int(0.9 * len(over))]}}
lat, codes, bad, lock = [], {}, [0], threading.Lock()
stop = time.perf_counter() + seconds
def client(i):
    j = i
    while time.perf_counter() < stop:
        name, text = queries[j % len(queries)]
        j += 7
        code, rec, ms = ask(text)
        with lock:
            codes[code] = codes.get(code, 0) + 1
            if code == 200:
                lat.append(ms)
                if rec["embeddings"] != expected[name]:
                    bad[0] += 1
            elif code == 503:
                time.sleep(1)
threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
t0 = time.perf_counter()
for t in threads: t.start()
for t in threads: t.join()
wall = time.perf_counter() - t0
lat.sort()
q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))]
out["load"] = {"clients": clients, "seconds": wall, "answered": len(lat), "per_second": len(lat) / wall,
               "p50_ms": q(0.5), "p90_ms": q(0.9), "p99_ms": q(0.99), "max_ms": lat[-1],
               "codes": codes, "wrong": bad[0]}
print(json.dumps(out))
