#!/usr/bin/env bash
# Every class of malformed input in README.md's table: writes a small file of that class, runs
# `subgraph info` on it and prints `name<TAB>exit status<TAB>stderr` (one line each).
# Usage: bash malformed.sh [SUBGRAPH_BINARY]   (default: target/release/subgraph)
set -u
bin=$(realpath "${1:-target/release/subgraph}")
d=$(mktemp -d)
cd "$d"
p() { printf "$2" > "$1"; }
p bad-token.graph 't 2 x\n'
p missing.txt '0 1\n2\n'
p extra.txt '0 1 2 3\n'
p range.graph 't 2 1\nv 0 0 1\nv 1 0 1\ne 0 5\n'
p edges.graph 't 3 2\nv 0 0 1\nv 1 0 2\nv 2 0 1\ne 0 1\n'
p vertices.graph 't 3 1\nv 0 0 1\nv 1 0 1\ne 0 1\n'
p huge.graph 't 4000000000 1\nv 0 0 0\n'
p degree.graph 't 2 1\nv 0 0 3\nv 1 0 1\ne 0 1\n'
p nul.graph 't 1 0\nv 0 0\0\n'
p empty.graph ''
p empty.txt '# nothing\n'
p trunc.g 't # 0\n2 1 1 1\nv 0 1\n'
p names.txt '0 1\nalice bob\n'
p keep.txt '0 1\n0 4000000000\n'
p array.mtx '%%%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n'
p banner.mtx '%%%%MatrixMarket tensor coordinate real general\n'
p row.mtx '%%%%MatrixMarket matrix coordinate pattern general\n2 2 1\n3 1\n'
p entries.mtx '%%%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n'
p out.zero '%% sym unweighted\n0 1\n'
p out.bip '%% bip unweighted\n1 1\n'
p out.first '%% graph\n1 2\n'
printf 't 1 0\nv 0 0\n' | gzip | head -c 20 > trunc.graph.gz
p notzstd.txt.zst 'abc'
cp empty.txt labelled.graph; p labelled.graph 't 2 1\nv 0 0 1\nv 1 0 1\ne 0 1\n'; p labels.txt '0 1\n'
"$bin" convert labelled.graph good.sgb 2>/dev/null
p magic.sgb 'not a binary graph file at all, but named .sgb, and long enough for a header to be read...........................\n'
head -c 100 good.sgb > short.sgb
head -c $(( $(stat -c %s good.sgb) - 8 )) good.sgb > trunc.sgb
cp good.sgb flipped.sgb; printf '\x01' | dd of=flipped.sgb bs=1 seek=130 conv=notrunc 2>/dev/null
for f in bad-token.graph missing.txt extra.txt range.graph edges.graph vertices.graph huge.graph degree.graph nul.graph \
    empty.graph empty.txt trunc.g names.txt keep.txt array.mtx banner.mtx row.mtx entries.mtx out.zero out.bip out.first \
    magic.sgb short.sgb trunc.sgb flipped.sgb trunc.graph.gz notzstd.txt.zst nonexistent.graph; do
    extra=()
    [ "$f" = keep.txt ] && extra=(--keep-ids)
    [ "$f" = out.first ] && extra=(--input-format konect)
    [ "$f" = magic.sgb ] && extra=(--input-format binary)
    err=$("$bin" info "$f" "${extra[@]}" 2>&1 >/dev/null); rc=$?
    printf '%s\t%s\t%s\n' "$f" "$rc" "$err"
done
err=$("$bin" info labelled.graph --vertex-labels labels.txt 2>&1 >/dev/null); printf 'labelled.graph --vertex-labels\t%s\t%s\n' $? "$err"
rm -rf "$d"
