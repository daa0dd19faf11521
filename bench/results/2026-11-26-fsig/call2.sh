# Device call 2: FSIG's strategy against GSI's (G3, G1 under an 8 GiB device budget with and
# without the host spill, the Sun & Luo sets), on this commit's build (.device-bin carried).
set -x
b=bench/gpu-bench.sh
mkdir -p /tmp/r2
start=$SECONDS
# G3: 16 queries counted in full, GSI's strategy (defaults), FSIG's, and both as their papers
# have them (no symmetry breaking; GSI: signature filter, PCSR, its order, breadth first).
OUT=/tmp/r2/g3 HEAVY_VARIANTS="gpu fsig fsig-paper gsi-paper" HEAVY_TIMEOUT=10 timeout 200 $b g3-variants
echo "g3 done at $((SECONDS - start)) s"
# G1 under --gpu-memory 8G: streaming the first 10^9 embeddings of dense_8_1 to /dev/null in the
# binary format, GSI's and FSIG's strategies, host spill auto and off.
OUT=/tmp/r2/g1 HEAVY_VARIANTS=none HEAVY_QUERIES=0 timeout 200 $b heavy 2>/dev/null  # generated G1 only (now: $b g1-graph)
sg=.device-bin/subgraph
q=$(ls /tmp/G1_q/*.graph | sort -V | head -n 1)
for s in gsi fsig; do for p in auto off; do
  timeout 60 $sg match -q --format json --device gpu --gpu-strategy $s --gpu-park $p --gpu-memory 8G \
    --limit 1000000000 --output /dev/null --output-format binary --timeout 30 /tmp/G1.sgb "$q" \
    >/tmp/r2/stream-$s-$p.jsonl 2>/tmp/r2/stream-$s-$p.err
  cat /tmp/r2/stream-$s-$p.jsonl | head -c 600; echo
done; done
echo "stream done at $((SECONDS - start)) s"
# G1 counted under the budget: defaults (spasm counts) and every count enumerated on the GPU.
OUT=/tmp/r2/g1 HEAVY_VARIANTS="gpu gpu-enum" HEAVY_FLAGS="--gpu-memory 8G" HEAVY_TIMEOUT=10 timeout 200 $b heavy
echo "g1 done at $((SECONDS - start)) s"
OUT=/tmp/r2/sets SETS_DEVICES="gpu-default gpu-fsig" SETS_QUERIES=20 SETS_TIMEOUT=3 timeout 150 $b sets
echo "sets done at $((SECONDS - start)) s"
tar czf "$OUT/call2.tgz" -C /tmp r2
