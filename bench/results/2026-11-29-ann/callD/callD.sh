set -u
S=.device-bin/subgraph; D=/tmp/ann/g128; mkdir -p $D; export SUBGRAPH_PTX_CACHE=/tmp/ptx
timeout 60 $S gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/gt.ivecs --labels-output $D/labels.txt --device gpu > $OUT/gen128.log 2>&1; cat $OUT/gen128.log
EF=10,16,24,32,48,64,96,128,192,256,384,512
echo "== gpu build cold, warm, efc 128"
timeout 60 $S ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/build-gpu-cold.json 2>&1; grep -o '"build_seconds":[0-9.]*' $OUT/build-gpu-cold.json
timeout 60 $S ann build $D/base.fvecs --output $D/h.sgi --device gpu > $OUT/build-gpu.json 2>&1; grep -o '"build_seconds":[0-9.]*' $OUT/build-gpu.json
timeout 90 $S ann build $D/base.fvecs --output $D/h128.sgi --device gpu --ef-construction 128 > $OUT/build-gpu-efc128.json 2>&1; grep -o '"build_seconds":[0-9.]*' $OUT/build-gpu-efc128.json
for MB in 1 4 8; do echo "== bench gpu minblocks $MB"; SUBGRAPH_ANN_MIN_BLOCKS=$MB timeout 60 $S ann bench $D/h.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --out $OUT/gpu-mb$MB --efs $EF 2>&1 | grep ef; done
echo "== bench gpu efc128"; timeout 60 $S ann bench $D/h128.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device gpu --out $OUT/gpu-efc128 --efs $EF 2>&1 | grep ef
echo "== latency gpu"; timeout 60 $S ann search $D/h.sgi $D/query.fvecs -k 10 --ef 96 --ground-truth $D/gt.ivecs --device gpu --one-at-a-time --max-queries 1000 > $OUT/latency-gpu.json 2>&1; cat $OUT/latency-gpu.json
echo "== cpu build and bench"; timeout 120 $S ann build $D/base.fvecs --output $D/c.sgi --device cpu > $OUT/build-cpu.json 2>&1; grep -o '"build_seconds":[0-9.]*' $OUT/build-cpu.json
timeout 90 $S ann bench $D/c.sgi $D/query.fvecs --ground-truth $D/gt.ivecs --device cpu --out $OUT/cpu --efs 16,24,32,48,64,96,128 2>&1 | grep ef
echo "== filters"; timeout 60 $S ann build $D/base.fvecs --output $D/l.sgi --device gpu --labels $D/labels.txt > $OUT/build-labels.json 2>&1
for F in 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49 0,1,2,3,4,5,6,7,8,9 0; do
  timeout 60 $S ann search $D/l.sgi $D/query.fvecs -k 10 --brute-force --filter-labels $F --device gpu --output $D/fgt.ivecs > /dev/null 2>&1
  for E in 64 128; do timeout 60 $S ann search $D/l.sgi $D/query.fvecs -k 10 --ef $E --filter-labels $F --ground-truth $D/fgt.ivecs --device gpu 2>&1 | sed "s/^/filter $(echo $F | tr ',' ' ' | wc -w) labels: /"; done
done | tee $OUT/filters.log
G=/tmp/ann/g960; mkdir -p $G
echo "== 960"; timeout 90 $S gen vectors --count 1000000 --dim 960 --queries 10000 --gt-k 100 --output $G/base.fvecs --queries-output $G/query.fvecs --ground-truth $G/gt.ivecs --device gpu > $OUT/gen960.log 2>&1; cat $OUT/gen960.log
timeout 150 $S ann build $G/base.fvecs --output $G/h.sgi --device gpu > $OUT/build960.json 2>&1; grep -o '"build_seconds":[0-9.]*' $OUT/build960.json
timeout 90 $S ann bench $G/h.sgi $G/query.fvecs --ground-truth $G/gt.ivecs --device gpu --out $OUT/gpu960 --efs $EF 2>&1 | grep ef
