# Device call 11, the committed code (4d09c8d) on whatever card comes: issue 12's and 14's heavy
# checks. G1's ten queries counted by the defaults within 10 s each, then under --gpu-memory 8G;
# 10^9 embeddings of dense_8_1 streamed to /dev/null in binary; G3's 16 queries under the
# defaults, FSIG's strategy, GSI as its paper has it and GpSM's strategy.
r=/tmp/r11; mkdir -p $r/g1 $r/g1-8g $r/g3
snap() { tar czf "$OUT/call11.tgz" -C /tmp r11; }
sg=.device-bin/subgraph
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $r/gpu.txt
OUT=$r/g1 HEAVY_VARIANTS=gpu HEAVY_TIMEOUT=10 timeout 200 bench/gpu-bench.sh heavy; snap
OUT=$r/g1-8g HEAVY_VARIANTS=gpu HEAVY_FLAGS="--gpu-memory 8G" HEAVY_TIMEOUT=10 timeout 150 bench/gpu-bench.sh heavy; snap
timeout 60 $sg match -q --format json --device gpu --limit 1000000000 --output /dev/null --output-format binary \
  /tmp/G1.sgb /tmp/G1_q/dense_8_1.graph >$r/stream-binary-1e9.json 2>$r/stream-binary-1e9.err; snap
OUT=$r/g3 HEAVY_VARIANTS="gpu fsig gsi-paper gpsm" HEAVY_TIMEOUT=10 timeout 250 bench/gpu-bench.sh g3-variants; snap
