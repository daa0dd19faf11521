# Device call 5, on the final build: the GPU suite; FSIG's spill with the final auto rule (only
# a nearly full device) on G3's 12-vertex queries under 2 GiB and 1 GiB; and FSIG against GSI as
# their papers have them on wordnet's 8-vertex classes after CFL's estimates were made once per
# path (call 3 spent 90-207 ms per query ordering there).
b=bench/gpu-bench.sh
sg=.device-bin/subgraph
mkdir -p /tmp/r5
start=$SECONDS
OUT=/tmp/r5 SUITE_TEST_TIMEOUT=420 scripts/gpu-suite.sh run >/tmp/r5/suite-stdout.txt 2>&1
tail -n 1 /tmp/r5/gpu-suite.log
grep -E "test executable" /tmp/r5/gpu-suite.log
echo "suite done at $((SECONDS - start)) s"
OUT=/tmp/r5/g3 timeout 100 $b g3-graph
qs=$(ls /tmp/G3_q/*_12_*.graph | sort -V)
for m in 2G 1G; do for p in auto off; do
  # shellcheck disable=SC2086
  timeout 60 $sg match -q --format json --device gpu --gpu-strategy fsig --gpu-park $p --gpu-memory $m \
    --timeout 10 /tmp/G3.sgb $qs >/tmp/r5/g3-fsig-$m-$p.jsonl 2>/tmp/r5/g3-fsig-$m-$p.err
done; done
echo "g3 done at $((SECONDS - start)) s"
d=.device-bin/sets/wordnet
for c in dense_8 sparse_8; do
  qs=$(ls $d/queries/query_${c}_*.graph | sort -V | head -n 20)
  for v in "fsig-paper --gpu-strategy fsig --symmetry off" "gsi-paper --gpu-filter signature --gpu-structure pcsr --order gsi --symmetry off --gpu-dfs off --spasm off --gpu-park off"; do
    # shellcheck disable=SC2086
    timeout 100 $sg match -q --format json --device gpu --timeout 3 ${v#* } $d/wordnet.graph $qs \
      >/tmp/r5/sets-wordnet-$c-${v%% *}.jsonl 2>/dev/null
  done
done
echo "all done at $((SECONDS - start)) s"
tar czf "$OUT/call5.tgz" -C /tmp r5
