# Device call 1: the GPU suite (every test executable, the oracles, FSIG's and GpSM's sets, every
# ablation combination) on this commit's build (bench/gpu-bench.sh build; .device-bin carried).
mkdir -p /tmp/r1
OUT=/tmp/r1 SUITE_TEST_TIMEOUT=420 scripts/gpu-suite.sh run >/tmp/r1/suite-stdout.txt 2>&1
tail -n 3 /tmp/r1/gpu-suite.log
grep -E "test executable|FAIL|panicked|parked|FSIG runs" /tmp/r1/gpu-suite.log | head -n 30
tar czf "$OUT/call1.tgz" -C /tmp r1
