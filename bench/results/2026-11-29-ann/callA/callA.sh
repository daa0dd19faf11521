set -u
B=.device-bin
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
nvidia-smi -L; nproc
( time timeout 200 $B/gpu_build --nocapture --test-threads 1 ) > $OUT/gpu_build.log 2>&1; tail -25 $OUT/gpu_build.log
( time timeout 150 $B/gpu --test-threads 2 ) > $OUT/gpu_tests.log 2>&1; grep -E "test result|FAILED|panicked|failures" $OUT/gpu_tests.log | head; tail -3 $OUT/gpu_tests.log
D=/tmp/d; mkdir -p $D
timeout 100 $B/subgraph gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu 2>&1 | tee $OUT/gen.log
timeout 150 $B/subgraph ann build $D/base.fvecs --output $D/h.sgi --graph hnsw --degree 32 --device gpu 2>&1 | tee $OUT/build-gpu.log
timeout 100 $B/subgraph ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --out $OUT/bench-gpu --efs 10,16,24,32,48,64,96,128,256 2>&1 | tee $OUT/bench-gpu.log
timeout 60 $B/subgraph ann search $D/h.sgi $D/query.fvecs -k 10 --ef 64 --ground-truth $D/gt.ivecs --device cpu --max-queries 2000 2>&1 | tee $OUT/search-cpu.log
