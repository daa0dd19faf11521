#!/usr/bin/env bash
# The bytes a cluster query sends, measured at 1 to PMAX processes of one worker thread each
# over loopback, for the byte model of bytes-model.py (beside this script). Bytes are counts,
# not timings: any machine gives the same numbers, so the 2-core development VM serves.
#
#   bytes.sh SUBGRAPH OUT PMAX RUN...
#       RUN: NAME:DATA:QUERY:CACHE. DATA is a graph file (partitioned here into PMAX hash
#       parts in the numbering ORDER names, default file, once per DATA and ORDER, under
#       OUT/parts-<ORDER>-<file name>), QUERY a query file, CACHE the
#       --cache-memory bytes (0: every position routed; 1GiB: the default, lists held where
#       they fit). Prints, and appends to OUT/bytes.csv, one line per run:
#         name,processes,embeddings,candidates,replicated_entries,replicated_positions,search,bytes_sent,elapsed_ms
set -euo pipefail
S=$1 OUT=$2 PMAX=$3
shift 3
mkdir -p "$OUT"
csv=$OUT/bytes.csv
[ -s "$csv" ] || echo "name,processes,embeddings,candidates,replicated_entries,replicated_positions,search,bytes_sent,elapsed_ms" > "$csv"
for run in "$@"; do
    IFS=: read -r name data query cache <<< "$run"
    parts=$OUT/parts-${ORDER:-file}-$(basename "$data")
    [ -s "$parts/manifest.json" ] || "$S" partition "$data" --parts "$PMAX" --vertex-order "${ORDER:-file}" \
        --output "$parts" > /dev/null
    for p in $(seq 1 "$PMAX"); do
        "$S" match "$parts/manifest.json" "$query" --local-processes "$p" --threads 1 --cache-memory "$cache" \
            --format json -q | python3 -c '
import json, sys
r = json.loads([l for l in sys.stdin if l.startswith("{")][-1])
print(",".join(str(x) for x in (sys.argv[1], sys.argv[2], r["embeddings"], r["candidates"], r["replicated_entries"],
      r["replicated_positions"], r["search"], r["bytes_sent"], round(r["elapsed_ms"], 1))))' "$name" "$p" | tee -a "$csv"
    done
done
