#!/bin/bash
# mf-kernel call 1: kernel variants on a Netflix-shaped set (gpu_speed harness).
set -u
exec > >(tee -a $OUT/log1.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
R=""
add() { R="$R$1;"; }
add "float 0 4 OLD"; add "half 0 4 OLD"; add "half 6864 4 OLD"; add "float 6864 4 OLD"; add "half 4224 4 OLD"
add "float 0 4 G=1"; add "half 0 4 G=1"
add "float 0 4 G=1,LDMODE=1"; add "half 0 4 G=1,LDMODE=1"; add "float 0 4 G=1,LDMODE=2"; add "half 0 4 G=1,LDMODE=2"
add "float 0 4 G=2"; add "half 0 4 G=2"; add "half 0 4 G=2,VEC=8"; add "float 0 4 G=4"; add "half 0 4 G=4,VEC=8"
add "float 0 4 G=2,LDMODE=1"; add "half 0 4 G=2,VEC=8,LDMODE=1"; add "float 0 4 G=4,LDMODE=1"; add "half 0 4 G=4,VEC=8,LDMODE=1"
add "float 0 4 G=2,MINB=12"; add "half 0 4 G=2,VEC=8,MINB=12"; add "float 0 4 G=4,MINB=10"; add "half 0 4 G=4,VEC=8,MINB=10"
add "float 0 4 G=1,DIAG_NOSTORE"; add "float 0 4 G=1,DIAG_PMASK=4095"; add "half 0 4 G=1,DIAG_PMASK=4095"
add "float 0 4 OLD"
SUBGRAPH_MF_SPEED_RUNS="$R" timeout 170 .device-bin/kernel/gpu_speed --ignored --nocapture --test-threads 1
echo "rc $?"; date -u
