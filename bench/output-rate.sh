#!/usr/bin/env bash
# How fast matches are written (issue 44, "Writing matches"): every system of SYSTEMS writes the
# first LIMIT matches of each QUERY of DATA in each format of FORMATS to each sink of SINKS,
# ROUNDS times, and each run is one CSV row of OUT.csv:
#   system,query,format,sink,round,embeddings,elapsed_ms,rows_per_s,cpu_percent
#   bench/output-rate.sh OUT DATA QUERY...
# SYSTEMS   "name=path ..." of subgraph binaries (default: sg=$SUBGRAPH or target/release/subgraph)
# FLAGS     added to every run (e.g. "--device gpu" or "--device cpu --threads 16")
# LIMIT     matches written per run (default 100000000)
# FORMATS   of --output-format (default "binary text")
# SINKS     null: --output /dev/null; pipe: --output - read by `dd bs=1M` (1 MiB blocks);
#           file: --output FILE_DIR/rows.out, removed after each run (default "null")
# FILE_DIR  where the file sink writes (default /tmp)
# ROUNDS    runs of each combination (default 1); TIMEOUT seconds a run may take (default 60)
# The elapsed time is the report's (`elapsed_ms`: plan and search, writing included; not the
# load); cpu_percent is the whole process's user and system time over its wall time.
set -uo pipefail
out=$1 data=$2
shift 2
SYSTEMS=${SYSTEMS:-sg=${SUBGRAPH:-target/release/subgraph}}
LIMIT=${LIMIT:-100000000} FORMATS=${FORMATS:-binary text} SINKS=${SINKS:-null}
FILE_DIR=${FILE_DIR:-/tmp} ROUNDS=${ROUNDS:-1} TIMEOUT=${TIMEOUT:-60} FLAGS=${FLAGS:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "system,query,format,sink,round,embeddings,elapsed_ms,rows_per_s,cpu_percent" >"$out.csv"
for q in "$@"; do
    for f in $FORMATS; do
        for sink in $SINKS; do
            for r in $(seq "$ROUNDS"); do
                for sys in $SYSTEMS; do
                    name=${sys%%=*} sg=${sys#*=}
                    args=(match "$data" "$q" -q --format json --limit "$LIMIT" --output-format "$f")
                    # shellcheck disable=SC2206
                    args+=($FLAGS)
                    case $sink in
                    null) timeout "$TIMEOUT" /usr/bin/time -o "$tmp/time" -f "%P" "$sg" "${args[@]}" \
                        --output /dev/null >"$tmp/report" 2>"$tmp/err" ;;
                    pipe) timeout "$TIMEOUT" /usr/bin/time -o "$tmp/time" -f "%P" "$sg" "${args[@]}" \
                        --output - 2>"$tmp/report" | dd bs=1M of=/dev/null 2>/dev/null ;;
                    file) timeout "$TIMEOUT" /usr/bin/time -o "$tmp/time" -f "%P" "$sg" "${args[@]}" \
                        --output "$FILE_DIR/rows.out" >"$tmp/report" 2>"$tmp/err"
                        rm -f "$FILE_DIR/rows.out" ;;
                    esac
                    python3 - "$name" "$q" "$f" "$sink" "$r" "$tmp/report" "$tmp/time" >>"$out.csv" <<'EOF'
import json, os, sys
name, q, f, sink, r, report, time = sys.argv[1:]
row = None
for line in open(report, errors="replace"):
    if line.startswith("{"):
        row = json.loads(line)
cpu = open(time).read().strip().splitlines()[-1].rstrip("%") if os.path.exists(time) else ""
q = os.path.basename(q)
if row is None:
    print(f"{name},{q},{f},{sink},{r},,,,{cpu}")
else:
    e, ms = row["embeddings"], row["elapsed_ms"]
    print(f"{name},{q},{f},{sink},{r},{e},{ms:.1f},{e / ms * 1e3:.3e},{cpu}")
EOF
                    rm -f "$tmp/time"
                done
            done
        done
    done
done
command -v column >/dev/null && column -s, -t <"$out.csv" || cat "$out.csv"
