#!/usr/bin/env bash
# Device call 6 (2026-11-25 night): the Oxigraph comparison on the GPU machine (16 cores, one
# GPU): GRR-like data of 55 universities, subgraph on one thread, all cores and the GPU, and
# Oxigraph (sparql-bench built here, carried in .device-bin).
set -u
B=.device-bin
res=$OUT/res; mkdir -p "$res"
{ date; nproc; nvidia-smi -L; } > "$res/machine.txt" 2>&1
if ! ldconfig -p | grep -q 'libnvrtc.so.13'; then
  lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
  [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
$B/subgraph gen rdf --universities 55 --seed 1 --output /tmp/grr55.nt 2> $res/gen.txt
SUBGRAPH=$B/subgraph SPARQL_BENCH=$B/sparql-bench RUNS=3 TIMEOUT=20 DEVICES="cpu1 cpu gpu" \
  timeout 500 bash bench/sparql/compare.sh /tmp/grr55.nt bench/queries/grr/patterns.txt $res/grr55 > $res/grr55.log 2>&1
echo "compare rc=$?" >> $res/grr55.log
rm -f $res/grr55/data.sgb
cd $OUT && tar czf results.tgz res && cd - > /dev/null
grep -v "^note:" $res/grr55.log | tail -8
