# Device call 4: FSIG's host spill with the auto rule raised to half of a level's memory
# (PARK_SHARE 2), against the spill forced on every level, on call 3's runs.
b=bench/gpu-bench.sh
sg=.device-bin/subgraph
mkdir -p /tmp/r4
start=$SECONDS
OUT=/tmp/r4/g3 timeout 100 $b g3-graph
qs=$(ls /tmp/G3_q/*_12_*.graph | sort -V)
for m in 2G 1G; do for p in auto on off; do
  # shellcheck disable=SC2086
  timeout 100 $sg match -q --format json --device gpu --gpu-strategy fsig --gpu-park $p --gpu-memory $m \
    --timeout 10 /tmp/G3.sgb $qs >/tmp/r4/g3-fsig-$m-$p.jsonl 2>/tmp/r4/g3-fsig-$m-$p.err
  echo "g3 $m $p done at $((SECONDS - start)) s"
done; done
OUT=/tmp/r4/g1 timeout 100 $b g1-graph
q=$(ls /tmp/G1_q/*.graph | sort -V | head -n 1)
for p in auto on; do
  timeout 40 $sg match -q --format json --device gpu --gpu-strategy fsig --gpu-park $p --gpu-memory 8G \
    --timeout 20 /tmp/G1.sgb "$q" >/tmp/r4/g1-fsig-8G-$p.jsonl 2>/tmp/r4/g1-fsig-8G-$p.err
done
echo "all done at $((SECONDS - start)) s"
tar czf "$OUT/call4.tgz" -C /tmp r4
