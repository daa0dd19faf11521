#!/usr/bin/env bash
# The server's handovers under load (issue 43), on this machine's CPU: HPRD's 200 oracle queries
# replayed by 64 clients (crates/subgraph-server/examples/load.rs), (A) for 60 s with a
# restart (POST /v1/restart) every 10 s, (B) for 30 s with the serving process killed
# (SIGKILL) at 15 s. From the repository root, after
#   cargo build --release --bin subgraph && cargo build --release -p subgraph-server --example load
set -u
out=${OUT:-bench/results/2026-11-30-server-handover}
sg=target/release/subgraph
load() { target/release/examples/load --url http://127.0.0.1:7878 --queries tests/data/hprd/queries \
    --expected tests/data/hprd/expected_output.res --clients 64 --seconds "$1"; }
health() { curl -s localhost:7878/v1/health; echo; }
start() { $sg serve --graph hprd=tests/data/hprd/HPRD.graph --device cpu --listen 127.0.0.1:7878 2>>"$out/serve-$1.log" &
    server=$!; sleep 2; }
uname -srm > "$out/machine.txt"; nproc >> "$out/machine.txt"; uptime >> "$out/machine.txt"
# A: restarts under load.
start A
load 60 > "$out/load-A.txt" 2>&1 &
l=$!
for t in 10 20 30 40 50; do sleep 10; date -u +%T; curl -s -XPOST localhost:7878/v1/restart; echo; done > "$out/restarts-A.txt"
wait $l
health >> "$out/restarts-A.txt"
curl -s localhost:7878/metrics > "$out/metrics-A.txt"
kill -TERM $server; wait $server; echo "supervisor exit $?" >> "$out/serve-A.log"
# B: the serving process killed under load.
start B
load 30 > "$out/load-B.txt" 2>&1 &
l=$!
sleep 15
pid=$(health | python3 -c 'import json,sys; print(json.load(sys.stdin)["process"]["pid"])')
date -u +%T > "$out/kill-B.txt"; kill -KILL "$pid"; echo "killed $pid" >> "$out/kill-B.txt"
wait $l
health >> "$out/kill-B.txt"
kill -TERM $server; wait $server; echo "supervisor exit $?" >> "$out/serve-B.log"
