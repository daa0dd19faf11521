set -u
B=.device-bin; S=$B/subgraph
export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1
( time timeout 100 $B/gpu_build --nocapture --test-threads 1 ) > $OUT/gpu_build.log 2>&1; grep -E "recall|test result" $OUT/gpu_build.log | tail -30
D=/tmp/d; mkdir -p $D
timeout 60 $S gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > $OUT/gen.log 2>&1
for G in 1024 4096 8192; do
  echo "== group $G"
  SUBGRAPH_ANN_GPU_GROUP=$G timeout 60 $S ann build $D/base.fvecs --output $D/g$G.sgi --device gpu 2>&1 | tee -a $OUT/builds.log
  timeout 30 $S ann bench $D/g$G.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --out $OUT/b$G --efs 32,64,128 --runs 1 2>&1 | grep ef
done
echo "== group 4096 efc 128"
SUBGRAPH_ANN_GPU_GROUP=4096 timeout 60 $S ann build $D/base.fvecs --output $D/e128.sgi --device gpu --ef-construction 128 2>&1 | tee -a $OUT/builds.log
timeout 30 $S ann bench $D/e128.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --out $OUT/be128 --efs 32,64,128 --runs 1 2>&1 | grep ef
echo "== cpu build"
timeout 150 $S ann build $D/base.fvecs --output $D/cpu.sgi --device cpu 2>&1 | tee -a $OUT/builds.log
timeout 60 $S ann bench $D/cpu.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device cpu --out $OUT/bcpu --efs 16,32,64,128 --runs 1 2>&1 | grep ef
