#!/bin/bash
# Device call X5 (2026-11-29, ninth session) on nvidia-h200-x2: the two-GPU training test with
# its third case, a hybrid whose split gives the GPUs every rating (now the rotation).
set -u
exec > >(tee -a $OUT/log.txt) 2>&1
date -u
SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_GPUS=2 timeout 150 .device-bin/mf-gpu-train --test-threads 1 --nocapture two_gpus more_gpus 2>&1 | grep -E "GPU|test result|panicked|RMSE|planted" | cut -c1-420
date -u
