#!/bin/bash
# Device call X2 (nvidia-h200-x2): x2.sh (scaling with and without replicas), bounded.
set -u
D=bench/results/2026-11-30-cluster-balance
timeout 560 bash $D/x2.sh
tar czf $OUT/x2.tgz -C /tmp yp/manifest.json 2>/dev/null
