#!/usr/bin/env bash
# Device call: (1, optional) .sgb load times old vs new; (2) every fuzz target, 2 jobs each, for
# FUZZ_SECONDS. Usage: bash .device-bin/fuzzcall.sh LOADS(0|1) FUZZ_SECONDS
set -u
loads=$1 secs=$2
B=.device-bin
res=$OUT/res; mkdir -p "$res"
nproc > "$res/nproc.txt"; lscpu | head -20 >> "$res/nproc.txt"
cd /tmp && tar xzf "$OLDPWD/$B/fuzz.tgz" && cd "$OLDPWD"
if [ "$loads" = 1 ]; then
  {
    echo "# commit new: $(cat /tmp/fuzz/COMMIT); old: 071704e"
    $B/subgraph gen graph --vertices 1048576 --edges 16777216 --seed 1 --output /tmp/u.sgb 2>&1 | tail -1
    $B/subgraph gen graph --vertices 1048576 --edges 16777216 --edge-labels 4 --directed --seed 1 --output /tmp/d.sgb 2>&1 | tail -1
    for f in u d; do for i in 1 2 3 4 5; do for b in subgraph-old subgraph; do
      t=$( { /usr/bin/time -f "%e %M" $B/$b info /tmp/$f.sgb > /dev/null; } 2>&1 | tail -1)
      echo "$f.sgb $b run$i $t"
    done; done; done
  } > "$res/loads.txt" 2>&1
fi
/usr/bin/time -f "cpu user %U s, system %S s, wall %e s" -o "$res/cpu.txt" bash /tmp/fuzz/fuzz-run.sh /tmp/fuzz "$secs" 2 /tmp/fuzz-out > "$res/fuzz-run.txt" 2>&1; echo "rc=$?" >> "$res/fuzz-run.txt"
cp /tmp/fuzz-out/summary.txt "$res/"
for t in /tmp/fuzz-out/*/; do n=$(basename $t); ls $t/artifacts | head > "$res/artifacts-$n.txt"; done
mkdir -p "$res/crashes"; find /tmp/fuzz-out -path '*artifacts/*' -type f -size -64k -exec cp {} "$res/crashes/" \; 2>/dev/null
tar czf $OUT/results.tgz -C $OUT res
