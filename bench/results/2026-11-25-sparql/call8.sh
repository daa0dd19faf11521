#!/usr/bin/env bash
# Device call 8 (2026-11-25 night): GRR-like data at GGQ's largest size (260 universities,
# about 600 MB of N-Triples) and 10x larger (2,600 universities, about 6 GB): generation and
# conversion times, and the 23 GRR patterns counted on the GPU and on all 16 cores (the larger
# one on the GPU only), 5 s per pattern. Oxigraph is left out (it would need the whole store in
# memory and minutes per pattern at these sizes).
set -u
B=.device-bin
res=$OUT/res; mkdir -p "$res"
{ date; nproc; nvidia-smi -L; free -g | head -2; } > "$res/machine.txt" 2>&1
if ! ldconfig -p | grep -q 'libnvrtc.so.13'; then
  lib=$(find /usr/local /usr/lib /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -n 1)
  [ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
args=(); while IFS= read -r l; do [[ -z "$l" || "$l" == \#* ]] && continue; args+=(--pattern "$l"); done < bench/queries/grr/patterns.txt
for u in 260 2600; do
  { /usr/bin/time -f "gen $u: %e s, %M KB" $B/subgraph gen rdf --universities $u --seed 1 --output /tmp/g$u.nt; ls -la /tmp/g$u.nt; } >> $res/sizes.txt 2>&1
  /usr/bin/time -f "convert $u: %e s, %M KB" timeout 240 $B/subgraph convert /tmp/g$u.nt /tmp/g$u.sgb >> $res/sizes.txt 2>&1
  rm -f /tmp/g$u.nt
  devs="gpu cpu"; [ $u = 2600 ] && devs="gpu"
  for d in $devs; do
    /usr/bin/time -f "match $u $d: %e s wall, %M KB" timeout 150 $B/subgraph match --device $d --timeout 5 --format json -q /tmp/g$u.sgb "${args[@]}" \
      > $res/grr$u-$d.jsonl 2> $res/grr$u-$d.err
    tail -1 $res/grr$u-$d.err >> $res/sizes.txt
  done
  cd $OUT && tar czf results.tgz res && cd - > /dev/null
done
cat $res/sizes.txt
