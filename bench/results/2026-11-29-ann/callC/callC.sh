set -u
S=.device-bin/subgraph; D=/tmp/ann/g128; mkdir -p $D
timeout 60 $S gen vectors --count 1000000 --dim 128 --queries 10000 --gt-k 100 --output $D/base.fvecs --queries-output $D/query.fvecs --ground-truth $D/groundtruth.ivecs --device gpu > $OUT/gen.log 2>&1; cat $OUT/gen.log
( timeout 90 bench/ann/setup_cpu_peers.sh /tmp/annsite ) > $OUT/setup.log 2>&1; tail -2 $OUT/setup.log
export PYTHONPATH=/tmp/annsite
PYTHONUNBUFFERED=1 timeout 300 python3 bench/ann/cpu_peers.py $D/base.fvecs $D/query.fvecs $D/groundtruth.ivecs --out $OUT/cpu_peers.csv --threads 16 --M 16 --ef-construction 200 --efs 10,16,24,32,48,64,96,128,192,256,384,512 > $OUT/cpu_peers.log 2>&1; tail -5 $OUT/cpu_peers.log
timeout 150 bench/ann/ganns.sh $D/base.fvecs $D/query.fvecs $D/groundtruth.ivecs --out $OUT/ganns.csv --log $OUT/ganns.log --d-min 16 --build-m 64 --es 10,16,24,32,48,64,96,128,192,256,384,512 > $OUT/ganns.out 2>&1; tail -5 $OUT/ganns.out
cat $OUT/*.csv | head -80
