#!/bin/bash
# mf-kernel call 2: GPU tests (default LDMODE=1); weak loads (LDMODE 1 plain, 2 L1::no_allocate,
# 3 P no_allocate + Q plain) over 20 epochs against the old kernel; 6864 workers; G=2; the cost
# of take_loss; occupancy; worker sweeps (in this order).
set -u
exec > >(tee -a $OUT/log2.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
echo "== GPU tests (default LDMODE=1)"; SUBGRAPH_REQUIRE_GPU=1 timeout 20 .device-bin/kernel/mf-gpu --test-threads 1 2>&1 | grep -E "test |result|workers|M upd|RMSE|panicked" | head -40
R=""
add() { R="$R$1;"; }
for x in float half; do add "$x 0 20 OLD"; add "$x 0 20 LDMODE=1"; add "$x 0 20 LDMODE=2"; done
for x in float half; do add "$x 6864 20 LDMODE=1"; add "$x 6864 20 LDMODE=2"; done
add "float 0 20 LDMODE=3"; add "half 0 20 LDMODE=3"; add "half 0 20 G=2,VEC=8,LDMODE=2"; add "half 0 20 G=2,VEC=8,LDMODE=1"
add "half 0 5 LDMODE=2 noloss"; add "float 0 5 LDMODE=1 noloss"; add "half 0 5 LDMODE=2"; add "float 0 5 LDMODE=1"
add "half 0 20 LDMODE=1"; add "float 0 20 LDMODE=2"
for b in 13 16; do add "half 0 5 LDMODE=2,MINB=$b"; add "float 0 5 LDMODE=1,MINB=$b"; done
for w in 1056 2112 4224; do add "half $w 5 LDMODE=2"; add "float $w 5 LDMODE=1"; done
SUBGRAPH_MF_SPEED_RUNS="$R" timeout 50 .device-bin/kernel/gpu_speed --ignored --nocapture --test-threads 1
echo "rc $?"; date -u
