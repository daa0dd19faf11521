#!/usr/bin/env bash
# The runs of bench/results/2026-11-29-server-load.md, from the repository root on an otherwise
# idle machine: `subgraph serve` with its defaults over HPRD on 127.0.0.1:7878, then the load
# generator (64 clients, 60 s, the 200 oracle queries), then one sequential client against
# `subgraph match`'s elapsed_ms (20 queries, 20 times each). Raw outputs go beside this script.
set -euo pipefail
out=bench/results/2026-11-29-server-load
cargo build --release -j2 -p subgraph-cli
cargo build --release -j2 -p subgraph-server --example load
{
    date -u
    git rev-parse HEAD
    nproc
    lscpu | grep 'Model name'
    uptime
} > "$out/machine.txt"

target/release/subgraph serve --graph hprd=tests/data/hprd/HPRD.graph 2> "$out/serve.log" &
server=$!
for _ in $(seq 100); do grep -q 'listening on' "$out/serve.log" && break; sleep 0.1; done
grep 'listening on http://127.0.0.1:7878' "$out/serve.log"

queries=(--queries tests/data/hprd/queries --expected tests/data/hprd/expected_output.res)
target/release/examples/load --url http://127.0.0.1:7878 "${queries[@]}" --clients 64 --seconds 60 \
    | tee "$out/load.txt"
curl -s http://127.0.0.1:7878/metrics > "$out/metrics-after-load.txt"
target/release/examples/load --url http://127.0.0.1:7878 "${queries[@]}" --sequential 20 --first 20 \
    --cli target/release/subgraph --data tests/data/hprd/HPRD.graph | tee "$out/latency.txt"

kill -TERM "$server"
status=0
wait "$server" || status=$?
echo "server exit status: $status" >> "$out/serve.log"
uptime >> "$out/machine.txt"
