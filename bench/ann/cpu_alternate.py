#!/usr/bin/env python3
"""Searches of several systems alternated batch by batch, for a shared and noisy machine.

    python3 bench/ann/cpu_alternate.py --out DIR [--rounds 5] [--runs 3] [--warm 256]
        [--efs 16,24,32,40,48,64,96,128,192] [--quiet 0.9] [--max-starved 0.1] [--tries 10]
        --system NAME=COMMAND [--system NAME=COMMAND ...]
    python3 bench/ann/cpu_alternate.py --summarise DIR      # DIR/summary.md from DIR/raw.jsonl

Each COMMAND (a shell command line) starts a server that loads its index and queries, prints one
JSON line with "ready", then answers each line `EF RUNS WARM` with one JSON line: "ef", "recall",
"queries", and "wall" and "cpu", the wall and process CPU seconds of each of RUNS timed batches
of all the queries (after an untimed batch of the first WARM queries). Servers:
`bench/ann/hnsw_saved.py serve` (hnswlib) and `ann_probe serve` (ours: the example of
crates/subgraph-ann, which searches as `subgraph ann bench` does).

In every round, for every ef, each system is asked in turn, the first one rotating from round to
round, so that all see the same load. Per (system, ef, round) the best batch is kept, as the
ANN benchmarks and `subgraph ann bench` do:
  wall QPS = queries / best wall seconds;
  CPU QPS  = queries / (CPU seconds of that batch / threads): what the batch would reach if its
             threads had never waited for a core (the other users' share removed; not the
             caches they disturb);
  starved  = 1 - CPU seconds / (threads * wall seconds): the share of the batch its threads
             were off a core (the load from others, with any idling of its own).
Quiet windows: before each request the driver waits (up to 120 s) until the machine was at
least --quiet idle over the last second (0: never waits); an answer whose best batch was
starved more than --max-starved is asked again, up to --tries times (the last is kept, and
the tries are counted in DIR/raw.jsonl). So on a machine that others use now and then, the
numbers come from the moments they did not.
The summary (stdout and DIR/summary.md): per system and ef, recall and the median over rounds
(min-max); per system, QPS at recall@10 0.90, 0.95 and 0.99 (log-interpolated between the two
efs around it, in each round); each system's ratio to the system named hnswlib, paired by
round. DIR/raw.jsonl holds every answer. Standard library only.
"""

import argparse
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import time

TARGETS = (0.90, 0.95, 0.99)


def at_recall(points, target):
    """QPS at `target`: log(QPS) linear in recall between the two points around it."""
    points = sorted(points)
    for (r0, q0), (r1, q1) in zip(points, points[1:]):
        if r0 <= target <= r1 and r1 > r0:
            t = (target - r0) / (r1 - r0)
            return math.exp(math.log(q0) + t * (math.log(q1) - math.log(q0)))
    return None


def spread(xs, fmt="{:,.0f}"):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "—"
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}–{fmt.format(max(xs))})"


def idle_share(seconds=1.0):
    def read():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
        return sum(v), v[3] + v[4]
    t0, i0 = read()
    time.sleep(seconds)
    t1, i1 = read()
    return (i1 - i0) / max(t1 - t0, 1)


def wait_quiet(share, limit=120):
    if share <= 0:
        return 0.0
    t0 = time.time()
    while time.time() - t0 < limit:
        if idle_share() >= share:
            break
    return time.time() - t0


class Server:
    def __init__(self, name, command):
        self.name = name
        self.proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     bufsize=1)
        hello = self.read()
        self.threads = hello.get("threads", 1)

    def read(self):
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"cpu_alternate: {self.name}'s server ended (exit {self.proc.wait()})")
        return json.loads(line)

    def ask(self, ef, runs, warm):
        self.proc.stdin.write(f"{ef} {runs} {warm}\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summarise":
        from_raw(sys.argv[2])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warm", type=int, default=256)
    ap.add_argument("--efs", default="16,24,32,40,48,64,96,128,192")
    ap.add_argument("--quiet", type=float, default=0.9, help="idle share to wait for before each request")
    ap.add_argument("--max-starved", type=float, default=0.1)
    ap.add_argument("--tries", type=int, default=10)
    ap.add_argument("--system", action="append", required=True, help="NAME=COMMAND")
    a = ap.parse_args()
    efs = [int(x) for x in a.efs.split(",")]
    os.makedirs(a.out, exist_ok=True)
    specs = [s.split("=", 1) for s in a.system]
    head = (f"cpu_alternate: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} on {os.uname().nodename}, "
            f"{os.cpu_count()} cores, {a.rounds} rounds x {a.runs} runs, warm {a.warm}, efs {a.efs}, "
            f"quiet {a.quiet}, max starved {a.max_starved}, tries {a.tries}")
    print(head, flush=True)
    servers = [Server(n, c) for n, c in specs]
    for s, (n, c) in zip(servers, specs):
        print(f"  {n} ({s.threads} threads): {c}", flush=True)
    res = {s.name: {} for s in servers}  # name -> ef -> [(round, recall, wall QPS, cpu QPS, starved)]
    with open(os.path.join(a.out, "raw.jsonl"), "a") as raw:
        for rnd in range(a.rounds):
            for ef in efs:
                turn = servers[rnd % len(servers):] + servers[:rnd % len(servers)]
                for s in turn:
                    for attempt in range(1, a.tries + 1):
                        waited = wait_quiet(a.quiet)
                        ans = s.ask(ef, a.runs, a.warm)
                        ans.update(system=s.name, round=rnd + 1, threads=s.threads, attempt=attempt,
                                   waited=round(waited, 1))
                        raw.write(json.dumps(ans) + "\n")
                        raw.flush()
                        i = min(range(len(ans["wall"])), key=lambda j: ans["wall"][j])
                        wall, cpu, m = ans["wall"][i], ans["cpu"][i], ans["queries"]
                        row = (rnd + 1, ans["recall"], m / wall, m / max(cpu / s.threads, 1e-12),
                               1 - cpu / (s.threads * wall))
                        if row[4] <= a.max_starved:
                            break
                    res[s.name].setdefault(ef, []).append(row)
                    print(f"  r{rnd + 1} {s.name:<14} ef {ef:>4}  recall {ans['recall']:.4f}  {row[2]:>9,.0f} q/s"
                          f"  cpu {row[3]:>9,.0f} q/s  starved {row[4]:.2f}  try {attempt}", flush=True)
    for s in servers:
        s.close()

    summarise(a.out, head, res)


def summarise(out, head, res):
    """Writes OUT/summary.md from res: name -> ef -> [(round, recall, wall QPS, CPU QPS, starved)]."""
    lines = [head, ""]
    for name, by_ef in res.items():
        lines += [f"### {name}", "", "| ef | recall@10 | wall QPS, median (min–max) | CPU QPS | starved |", "|---|---|---|---|---|"]
        for ef, rows in sorted(by_ef.items()):
            rec = "/".join(f"{r:.4f}" for r in sorted({r[1] for r in rows}))
            lines.append(f"| {ef} | {rec} | {spread([r[2] for r in rows])} | {spread([r[3] for r in rows])} | "
                         f"{spread([r[4] for r in rows], '{:.2f}')} |")
        lines.append("")

    def per_round(name, col, target):
        rounds = {}
        for ef, rows in res[name].items():
            for r in rows:
                rounds.setdefault(r[0], []).append((r[1], r[col]))
        return {rnd: at_recall(pts, target) for rnd, pts in rounds.items()}

    for col, what in ((2, "wall"), (3, "CPU")):
        lines += [f"QPS ({what}) at recall@10, median over rounds (min–max):", "",
                  "| system | " + " | ".join(f"{t:.2f}" for t in TARGETS) + " |", "|---|" + "---|" * len(TARGETS)]
        for name in res:
            lines.append(f"| {name} | " + " | ".join(spread(per_round(name, col, t).values()) for t in TARGETS) + " |")
        lines.append("")
        if "hnswlib" in res:
            lines += [f"Ratio to hnswlib ({what}), paired by round, median (min–max):", "",
                      "| system | " + " | ".join(f"{t:.2f}" for t in TARGETS) + " |",
                      "|---|" + "---|" * len(TARGETS)]
            for name in res:
                if name == "hnswlib":
                    continue
                cells = []
                for t in TARGETS:
                    ours, theirs = per_round(name, col, t), per_round("hnswlib", col, t)
                    cells.append(spread([ours[r] / theirs[r] if ours.get(r) and theirs.get(r) else None
                                         for r in ours], "{:.3f}"))
                lines.append(f"| {name} | " + " | ".join(cells) + " |")
            lines.append("")
    text = "\n".join(lines)
    print("\n" + text)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text + "\n")


def from_raw(out):
    """The summary of OUT/raw.jsonl as it stands (a run cut short, or one to summarise again):
    the last answer of each (system, round, ef)."""
    last = {}
    with open(os.path.join(out, "raw.jsonl")) as f:
        for line in f:
            ans = json.loads(line)
            last[(ans["system"], ans["round"], ans["ef"])] = ans
    res = {}
    for (name, rnd, ef), ans in sorted(last.items(), key=lambda kv: kv[0][1]):
        i = min(range(len(ans["wall"])), key=lambda j: ans["wall"][j])
        wall, cpu, m, th = ans["wall"][i], ans["cpu"][i], ans["queries"], ans["threads"]
        res.setdefault(name, {}).setdefault(ef, []).append(
            (rnd, ans["recall"], m / wall, m / max(cpu / th, 1e-12), 1 - cpu / (th * wall)))
    rounds = max(r for _, r, _ in last)
    summarise(out, f"cpu_alternate: summary of {out}/raw.jsonl ({rounds} rounds, complete or not)", res)


if __name__ == "__main__":
    main()
