#!/bin/bash
# alt.sh OUT ROUNDS EFS NAME=PROBE[:INDEX] ...   (hnswlib always included)
D=/work/data/ann; P=/tmp/annpy/bin/python; B=/work/wt-anncpu/bench/ann
OUT=$1 ROUNDS=$2 EFS=$3; shift 3
args=(--system "hnswlib=$P $B/hnsw_saved.py serve $D/base.fvecs $D/hnsw-M16-efc200.bin $D/query.fvecs $D/gt.ivecs --threads 2")
for s in "$@"; do name=${s%%=*}; rest=${s#*=}; probe=${rest%%:*}; idx=${rest#*:}; [ "$idx" = "$rest" ] && idx=$D/ours-main.sgi
  if [ "$idx" = hnswgraph ]; then args+=(--system "$name=$D/$probe serve - $D/query.fvecs $D/gt.ivecs --hnswlib $D/hnsw-M16-efc200.bin --base $D/base.fvecs")
  else args+=(--system "$name=$D/$probe serve $idx $D/query.fvecs $D/gt.ivecs"); fi; done
exec $P $B/cpu_alternate.py --out $D/runs/$OUT --rounds $ROUNDS --efs $EFS ${ALTOPTS:-} "${args[@]}"
