#!/usr/bin/env bash
# Call 2 (two H200s' host, 32 cores): the new and extended fuzz targets of issue 47
# (decompress, ids, props, pattern_compile), 8 libFuzzer jobs each, for SECONDS.
# Usage: bash .../call2.sh SECONDS (carry .device-bin/fuzz.tgz, built by scripts/fuzz-build.sh).
set -u
secs=$1
res=$OUT/res; mkdir -p "$res"
nproc > "$res/nproc.txt"; lscpu | head -20 >> "$res/nproc.txt"
(cd /tmp && tar xzf "$OLDPWD/.device-bin/fuzz.tgz")
/usr/bin/time -f "cpu user %U s, system %S s, wall %e s" -o "$res/cpu.txt" \
    bash /tmp/fuzz/fuzz-run.sh /tmp/fuzz "$secs" 8 /tmp/fuzz-out > "$res/fuzz-run.txt" 2>&1
echo "rc=$?" >> "$res/fuzz-run.txt"
cp /tmp/fuzz-out/summary.txt "$res/"
mkdir -p "$res/crashes"; find /tmp/fuzz-out -path '*artifacts/*' -type f -size -64k -exec cp {} "$res/crashes/" \; 2>/dev/null
cat "$res/cpu.txt" "$res/summary.txt"; tail -3 "$res/fuzz-run.txt"
tar czf "$OUT/results.tgz" -C "$OUT" res
