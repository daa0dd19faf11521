#!/usr/bin/env bash
# Call D3 on the H200 host (issue 44): what bounds G3's text rows. `new` (decimal digits) writes
# sparse_12_4's first 2*10^8 rows as text to /dev/null on 2-16 host threads, and counts them
# without writing; text against the words format (no formatting) at 16.
#   bash bench/results/2026-12-01-decimal/d3.sh   # from the repository root, .device-bin carried
set -uo pipefail
b=$PWD/.device-bin O=${OUT:-/tmp/out}
for f in "$b"/*.xz; do [ -f "$f" ] && xz -d -f "$f"; done
chmod +x "$b"/*
mkdir -p "$O" /tmp/w
exec > >(tee "$O/d3.log") 2>&1
echo "== $(date -u +%FT%TZ) $(nproc) cores; $(lscpu | grep -E 'Model name|Thread|Core|Socket' | tr -s ' ' | tr '\n' ';')"
if [ ! -f /tmp/w/G3.sgb ]; then
  ( cd /tmp/w && timeout 200 python3 "$b/bigraph_gen.py" graph --scale 20 --edge-factor 16 --labels 256 \
      --alpha 0 --seed 13 --output G3.graph --queries G3_q --query-seed 5 dense:8:4 sparse:8:4 dense:12:4 \
      sparse:12:4 ) | tail -1
  timeout 120 "$b/sg-base" convert /tmp/w/G3.graph /tmp/w/G3.sgb | tail -1
fi
G3q=/tmp/w/G3_q/sparse_12_4.graph
run() { # label, then match's arguments
  local l=$1; shift
  /usr/bin/time -f "%e s %P" timeout 60 "$b/sg-new2" match /tmp/w/G3.sgb $G3q --device gpu -q --format json --limit 200000000 "$@" \
    2>/tmp/w/err | python3 -c "
import json,sys
r=[json.loads(l) for l in sys.stdin if l.startswith('{')][-1]
print('$l', r['embeddings'], 'elapsed', round(r['elapsed_ms']), 'ms', 'enumerate', round(r.get('enumerate_ms',0)), '%.3e/s' % (r['embeddings']/r['elapsed_ms']*1e3), end=' ')"
  tail -1 /tmp/w/err
}
run count
for t in 16 8 4 2 16; do run "text threads $t" --threads $t --output-format text --output /dev/null; done
run "words 16" --output-format words --output /dev/null
run "binary 16" --output-format binary --output /dev/null
which perf && timeout 60 perf stat -e task-clock,context-switches,cpu-migrations,page-faults "$b/sg-new2" match /tmp/w/G3.sgb $G3q \
  --device gpu -q --limit 200000000 --output-format text --output /dev/null 2>&1 | tail -12
echo "== done $(date -u +%FT%TZ)"
