#!/usr/bin/env bash
# Issue 44's reuse of a level between siblings, on the H200 host's cores (one call): the dense
# class of 2026-12-03-bitmaps (a PPI-shaped R-MAT graph, dense 8- and 12-vertex queries),
# main before (sg-base.gz, 42f02057) and after (sg-new.gz) alternated: 16 threads with the
# shortcuts off (two rounds) and with the defaults, 2 threads with the shortcuts off (one).
# Run as: OUT=$OUT timeout 570 bash run.sh, both stripped builds gzipped in .device-bin.
set -u
R=$OUT; OUT=/tmp/res; mkdir -p $OUT; trap 'tar czf $R/res.tgz -C $OUT .' EXIT
for b in base new; do gunzip -c .device-bin/sg-$b.gz > /tmp/sg-$b; chmod +x /tmp/sg-$b; done
B=/tmp/sg-new
D=/tmp/dense; mkdir -p $D
$B gen graph --model rmat --vertices 4700 --edges 86000 --vertex-labels 44 --label-dist powerlaw:1.5 --seed 3 -o $D/ppi.graph
$B gen queries $D/ppi.graph --size 8 --count 12 --kind dense --seed 1 --output $D/q8
$B gen queries $D/ppi.graph --size 12 --count 12 --kind dense --seed 2 --output $D/q12
nproc; lscpu | grep -E "Model name" | head -1
m() { local tag=$1 b=$2; shift 2; timeout 120 /tmp/sg-$b match $D/ppi.graph -q --format json --device cpu "$@" > $OUT/$tag.jsonl 2>>$OUT/err.txt; echo "$tag $(date +%s)"; }
for r in 0 1; do for b in base new; do
  for q in q8 q12; do m t16-$q-$b-$r $b $D/$q --threads 16 --timeout 3 --spasm off --tail off; done
done; done
for b in base new; do for q in q8 q12; do m def16-$q-$b $b $D/$q --threads 16 --timeout 3; done; done
for b in base new; do for q in q8 q12; do m t2-$q-$b $b $D/$q --threads 2 --timeout 3 --spasm off --tail off; done; done
