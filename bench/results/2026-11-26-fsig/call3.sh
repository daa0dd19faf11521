# Device call 3: FSIG against GSI as their papers have them on the Sun & Luo sets, and FSIG's
# host spill under device-memory budgets (G3's 12-vertex queries, G1's dense_8_1).
b=bench/gpu-bench.sh
sg=.device-bin/subgraph
mkdir -p /tmp/r3
start=$SECONDS
OUT=/tmp/r3/sets SETS_DEVICES="gpu-fsig-paper gpu-gsi-paper" SETS_QUERIES=20 SETS_TIMEOUT=3 timeout 260 $b sets
echo "sets done at $((SECONDS - start)) s"
# G3 (generated as by `g3`), FSIG's strategy on the 12-vertex queries under 2 GiB and 1 GiB,
# host spill auto and off (uncapped, these queries peaked at 1.1-7.2 GB in call 2).
OUT=/tmp/r3/g3 timeout 100 $b g3-graph
qs=$(ls /tmp/G3_q/*_12_*.graph | sort -V)
for m in 2G 1G; do for p in auto off; do
  # shellcheck disable=SC2086
  timeout 100 $sg match -q --format json --device gpu --gpu-strategy fsig --gpu-park $p --gpu-memory $m \
    --timeout 10 /tmp/G3.sgb $qs >/tmp/r3/g3-fsig-$m-$p.jsonl 2>/tmp/r3/g3-fsig-$m-$p.err
  echo "g3 $m $p done at $((SECONDS - start)) s"
done; done
# G1's dense_8_1 (9.1*10^11 embeddings) by FSIG's breadth-first pipeline under 8 GiB: how far
# each gets in 20 s, with and without the spill.
OUT=/tmp/r3/g1 timeout 100 $b g1-graph
q=$(ls /tmp/G1_q/*.graph | sort -V | head -n 1)
for p in auto off; do
  timeout 40 $sg match -q --format json --device gpu --gpu-strategy fsig --gpu-park $p --gpu-memory 8G \
    --timeout 20 /tmp/G1.sgb "$q" >/tmp/r3/g1-fsig-8G-$p.jsonl 2>/tmp/r3/g1-fsig-8G-$p.err
done
echo "all done at $((SECONDS - start)) s"
tar czf "$OUT/call3.tgz" -C /tmp r3
