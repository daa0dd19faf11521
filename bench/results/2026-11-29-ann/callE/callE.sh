set -u
B=.device-bin; S=$B/subgraph; export SUBGRAPH_REQUIRE_GPU=1 SUBGRAPH_REQUIRE_NVRTC=1 SUBGRAPH_PTX_CACHE=/tmp/ptx
( time timeout 200 $B/gpu --test-threads 2 ) > $OUT/gpu_tests.log 2>&1; grep -E "test result|FAILED|panicked" $OUT/gpu_tests.log | head -5
( time timeout 100 $B/gpu_build --nocapture --test-threads 1 ) > $OUT/gpu_build.log 2>&1; grep -E "test result|FAILED|panicked" $OUT/gpu_build.log | head -5
D=/tmp/ann/g128; mkdir -p $D
timeout 60 $S gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu > $OUT/gen.log 2>&1
for run in cold warm; do timeout 60 $S ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/build-$run.json 2>&1; grep -o '"build_seconds":[0-9.]*' $OUT/build-$run.json; done
python3 -c "import json; d=json.load(open('$OUT/build-warm.json')); [print('  %-45s %.3f'%(p['phase'],p['seconds'])) for p in d['phases'] if p['seconds']>0.05]"
timeout 60 $S ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --out $OUT/bench --efs 10,16,24,32,48,64,96,128,192,256,384,512 2>&1 | grep ef
