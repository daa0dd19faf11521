#!/usr/bin/env bash
# Issue 44's CPU bitmaps on the H200 host's cores (one call): a dense graph shaped like
# gMatch's PPI class (4,700 vertices, 86,000 edges, 44 labels, power-law 1.5), 12 dense
# 8-vertex and 12 dense 12-vertex queries, counted with the shortcuts off (--spasm off
# --tail off) and with the defaults, --bitmaps off and auto alternated, 16 threads (two
# rounds) and 2 threads (one). Run as: OUT=$OUT timeout 590 bash run.sh, with sg-new.gz
# (this commit's stripped subgraph) in .device-bin; SKIP=1 leaves out the defaults and the GPU.
set -u
R=$OUT; OUT=/tmp/res; mkdir -p $OUT; trap 'tar czf $R/res.tgz -C $OUT .' EXIT
B=/tmp/sg; gunzip -c .device-bin/sg-new.gz > $B; chmod +x $B
D=/tmp/dense; mkdir -p $D
$B gen graph --model rmat --vertices 4700 --edges 86000 --vertex-labels 44 --label-dist powerlaw:1.5 --seed 3 -o $D/ppi.graph
$B gen queries $D/ppi.graph --size 8 --count 12 --kind dense --seed 1 --output $D/q8
$B gen queries $D/ppi.graph --size 12 --count 12 --kind dense --seed 2 --output $D/q12
nproc; lscpu | grep -E "Model name|MHz" | head -3
m() { local tag=$1; shift; timeout 120 $B match $D/ppi.graph -q --format json --device ${DEV:-cpu} "$@" > $OUT/$tag.jsonl 2>>$OUT/err.txt; echo "$tag $(date +%s)"; }
for r in 0 1; do for f in off auto; do
  for q in q8 q12; do m t16-$q-$f-$r $D/$q --threads 16 --timeout 3 --spasm off --tail off --bitmaps $f; done
done; done
[ -z "${SKIP:-}" ] && for f in off auto; do for q in q8 q12; do m def16-$q-$f $D/$q --threads 16 --timeout 3 --bitmaps $f; done; done
[ -z "${SKIP:-}" ] && for q in q8 q12; do DEV=gpu m gpu-$q $D/$q --timeout 3 --spasm off --tail off; done
for f in off auto; do for q in q8 q12; do m t2-$q-$f $D/$q --threads 2 --timeout 3 --spasm off --tail off --bitmaps $f; done; done
