#!/usr/bin/env python3
"""`subgraph serve` on a GPU host, through the binary (issue 43): `--device auto --gpus 1` lists
its device; over a random graph of 20,000 vertices of degree 10 (written here, as the server's
GPU tests make theirs), queries the planner keeps on the CPU (a limit) are answered while a GPU
query (closed 8-walks, which `auto` sends to the GPU there; not on HPRD) runs, without waiting
for it; the new health and metrics fields are there; `--gpus`
beyond the host's devices fails at start with one line; under `--device gpu`, a restart and a
killed server process each hand over to a new process that opens the GPU anew and counts there,
the same count; with two GPUs or more, `--gpus 2` runs two GPU queries at once. Without a GPU (nvidia-smi lists none), `--device auto --gpus 2` serves
from the CPU, saying why. Standard library only; prints `N passed, N failed` last and exits 1 on
a failure.

    python3 scripts/server-gpu-check.py SUBGRAPH_BINARY [HPRD.graph]
"""

import json
import os
import re
import subprocess
import sys
import threading
import time
import tempfile
import urllib.error
import urllib.request

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/subgraph"
GRAPH = sys.argv[2] if len(sys.argv) > 2 else "tests/data/hprd/HPRD.graph"
# Closed 8-walks of HPRD, counted one by one: more than the 10 s it may take on any device.
HEAVY = {"pattern": "MATCH (a)--(b)--(c)--(d)--(e)--(f)--(g)--(h)--(a) RETURN count(*)", "spasm": "off", "tail": "off",
         "timeout": 10}
LIMITED = {"pattern": "MATCH (a)--(b)--(c)--(a) RETURN a, b, c", "limit": 5}
results = [0, 0]


def check(ok, what):
    results[0 if ok else 1] += 1
    print(("pass " if ok else "FAIL ") + what, flush=True)


def call(base, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            text = r.read().decode()
            return r.status, (json.loads(text) if text.startswith("{") else text)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode())


class Serve:
    """`subgraph serve` on a free loopback port, with `flags`."""

    def __init__(self, *flags, graph=GRAPH):
        cmd = [BIN, "serve", "--listen", "127.0.0.1:0", "--graph", f"hprd={graph}", *flags]
        self.p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        self.log = []
        while True:
            line = self.p.stderr.readline()
            if not line:
                raise RuntimeError("the server did not start:\n" + "".join(self.log))
            self.log.append(line)
            m = re.search(r"listening on (http://\S+)", line)
            if m:
                self.base = m.group(1)
                break
        threading.Thread(target=lambda: [self.log.append(l) for l in self.p.stderr], daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.p.terminate()
        self.p.wait(timeout=30)

    def state(self):
        return call(self.base, "/v1/graphs")[1]["graphs"][0]["devices"] or [{}]


def until(seconds, ok):
    end = time.time() + seconds
    while time.time() < end:
        if ok():
            return True
        time.sleep(0.02)
    return False


def walk_graph():
    """An edge list of 20,000 vertices, each linked to 10 drawn by a fixed generator."""
    n, x, lines = 20000, 0x9E3779B97F4A7C15, []
    for a in range(n):
        for _ in range(10):
            x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            b = (x >> 33) % n
            if a != b:
                lines.append(f"{a} {b}\n")
    path = os.path.join(tempfile.mkdtemp(), "walks.txt")
    with open(path, "w") as f:
        f.writelines(lines)
    return path


def auto_one_gpu():
    # One CPU turn: the GPU query gives it back while it waits for and runs on the device.
    with Serve("--device", "auto", "--gpus", "1", "--max-concurrent", "1", graph=walk_graph()) as s:
        g = call(s.base, "/v1/graphs")[1]["graphs"][0]
        print("engine:", g["engine"])
        check(g["device"] == "gpu" and g["devices"] == [{"device": 0, "state": "ready"}], f"devices {g['devices']}")
        heavy = {}
        t = threading.Thread(target=lambda: heavy.update(r=call(s.base, "/v1/graphs/hprd/match", HEAVY),
                                                         end=time.time()))
        t.start()
        check(until(10, lambda: s.state()[0].get("state") == "busy"), "the heavy query took the GPU")
        start = time.time()
        answers = [call(s.base, "/v1/graphs/hprd/match", LIMITED) for _ in range(20)]
        cpu_end = time.time()
        t.join()
        status, record = heavy["r"]
        check(all(st == 200 and r["device"] == "cpu" and r["embeddings"] == 5 for st, r in answers),
              "20 limited queries answered on the CPU")
        check(status == 200 and record["device"] == "gpu", f"the heavy query ran on the GPU ({record.get('device')}, "
                                                            f"{record.get('elapsed_ms', 0):.0f} ms, stopped: "
                                                            f"{record.get('stopped')})")
        check(cpu_end < heavy["end"], f"the CPU queries ({(cpu_end - start) * 1e3:.0f} ms) did not wait for the "
                                      f"GPU query (which ended {(heavy['end'] - cpu_end) * 1e3:.0f} ms after them)")
        health = call(s.base, "/v1/health")[1]
        check(health.get("degraded") == [], f"health {health}")
        metrics = call(s.base, "/metrics")[1]
        for line in ['subgraph_device_faults_total{device="0"} 0', 'subgraph_device_reopens_total{device="0"} 0',
                     "subgraph_devices_degraded 0"]:
            check(line in metrics.splitlines(), f"metrics: {line}")


TRIANGLES = {"pattern": "MATCH (a)--(b)--(c)--(a) RETURN count(*)"}


def handover_on_gpu():
    with Serve("--device", "gpu", graph=walk_graph()) as s:
        status, first = call(s.base, "/v1/graphs/hprd/match", TRIANGLES)
        check(status == 200 and first.get("device") == "gpu", f"a count on the GPU ({first.get('embeddings')})")
        process = lambda: call(s.base, "/v1/health")[1]["process"]
        old = process()
        check(old["supervised"] and old["generation"] == 0, f"process {old}")
        for generation, how in [(1, "a restart"), (2, "a killed process")]:
            start = time.time()
            if how == "a restart":
                status, body = call(s.base, "/v1/restart", {})
                check(status == 202, f"restart answered {status} {body}")
            else:
                os.kill(old["pid"], 9)
            took = until(120, lambda: process()["generation"] == generation)
            new = process()
            check(took, f"after {how}, process {generation} serves ({time.time() - start:.1f} s): {new}")
            status, record = call(s.base, "/v1/graphs/hprd/match", TRIANGLES)
            check(status == 200 and record.get("device") == "gpu" and record.get("embeddings") == first.get("embeddings"),
                  f"after {how}, the same count on the GPU ({record.get('device')}, {record.get('embeddings')})")
            check(until(30, lambda: not os.path.exists(f"/proc/{old['pid']}") or
                        open(f"/proc/{old['pid']}/stat").read().split(") ")[1].startswith("Z")),
                  f"process {old['pid']} exited")
            old = new


def gpus_count():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    except FileNotFoundError:
        return 0
    return sum(1 for l in out.splitlines() if l.startswith("GPU"))


def too_many(n):
    p = subprocess.run([BIN, "serve", "--check", "--device", "auto", "--gpus", str(n + 1), "--graph",
                        f"hprd={GRAPH}"], capture_output=True, text=True, timeout=120)
    lines = p.stderr.strip().splitlines()
    print("--gpus", n + 1, "answers:", p.stderr.strip())
    check(p.returncode != 0 and len(lines) == 1 and "--gpus" in lines[0], f"--gpus {n + 1} on {n} GPU(s) refused")


def two_gpus():
    with Serve("--device", "gpu", "--gpus", "2", "--max-concurrent", "8", graph=walk_graph()) as s:
        g = call(s.base, "/v1/graphs")[1]["graphs"][0]
        print("engine:", g["engine"])
        check([d["device"] for d in g["devices"]] == [0, 1], f"devices {g['devices']}")
        answers, seen = [], []

        def ask():
            answers.append(call(s.base, "/v1/graphs/hprd/match", HEAVY))

        def both_busy():
            states = [d.get("state") for d in s.state()]
            if not seen or seen[-1] != states:
                seen.append(states)
            return states == ["busy", "busy"]

        ts = [threading.Thread(target=ask) for _ in range(2)]
        for t in ts:
            t.start()
        ok = until(10, both_busy)
        for t in ts:
            t.join()
        for status, record in answers:
            print("answer:", status, {k: record.get(k) for k in ("device", "gpus", "elapsed_ms", "stopped", "code", "message")})
        check(ok, f"two GPU queries at once (device states seen: {seen})")
        check(len(answers) == 2 and all(st == 200 and r.get("device") == "gpu" for st, r in answers),
              "both answered on a GPU")
        if not ok:
            print("".join(s.log[-20:]))


def no_gpu():
    with Serve("--device", "auto", "--gpus", "2") as s:
        g = call(s.base, "/v1/graphs")[1]["graphs"][0]
        print("engine:", g["engine"])
        check(g["device"] == "cpu" and g["devices"] == [] and g["engine"].startswith("CPU ("),
              "--device auto --gpus 2 without a GPU: the CPU, saying why")
        status, record = call(s.base, "/v1/graphs/hprd/match", LIMITED)
        check(status == 200 and record["embeddings"] == 5, "a query answered")
        check(call(s.base, "/v1/health")[1].get("degraded") == [], "health: nothing degraded")


n = gpus_count()
print(f"{n} GPU(s)")
if n == 0:
    no_gpu()
else:
    auto_one_gpu()
    too_many(n)
    handover_on_gpu()
if n >= 2:
    two_gpus()
print(f"{results[0]} passed, {results[1]} failed")
sys.exit(1 if results[1] else 0)
