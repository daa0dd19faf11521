#!/usr/bin/env bash
# The device call of 2026-12-01 (issue 45, unreliable challengers probed): the Sun & Luo framework, main before (sg-base,
# a18b37b, the same plans as 46edc29) and the change (sg-new) on the H200 host's CPU, one thread each,
# 15 lanes, through bench/planner-cost.sh. Run from the repository root with .device-bin
# carried: sg-base.gz, sg-new.gz (stripped release binaries), fw-v3 (the framework built for
# x86-64-v3, used where the host has no g++), sl.tgz (its sources), data.tgz (yeast, hprd,
# wordnet in the Sun & Luo layout). WHAT=std runs the standard sets, WHAT=heavy the heavy set.
set -uo pipefail
b=.device-bin
w=/tmp/w
mkdir -p $w
[ -d $w/data ] || tar xzf $b/data.tgz -C $w
[ -d $w/sl ] || tar xzf $b/sl.tgz -C $w
for s in sg-base sg-new; do [ -x $w/$s ] || { gunzip -c $b/$s.gz >$w/$s && chmod +x $w/$s; }; done
out=${OUT:-/tmp/out}/${WHAT:-std}
mkdir -p "$out"
{ nproc; lscpu | grep -E 'Model name|MHz|L3'; free -g | head -2; } >"$out/host.txt" 2>&1
fw=$b/fw-v3
if command -v g++ >/dev/null; then
    (cd $w/sl && g++ -std=c++11 -O3 -march=native -pthread -DENABLE_FAILING_SET -I. \
        matching/{matchingcommand,FilterVertices,BuildTable,GenerateQueryPlan,EvaluateQuery,GenerateFilteringPlan,StudyPerformance}.cpp \
        graph/graph.cpp utility/{graphoperations,commandparser,computesetintersection,bitsetoperation}.cpp \
        utility/han/intersection_algos.cpp utility/han/utils/util.cpp -Wl,--allow-multiple-definition \
        -o /tmp/fw-native) && fw=/tmp/fw-native
fi
echo "framework: $fw" >>"$out/host.txt"
case ${WHAT:-std} in
std) FW=$fw BASE=$w/sg-base NEW=$w/sg-new DATA=$w/data LANES=15 STEP=${STEP:-150} HEAVY= bench/planner-cost.sh "$out" ;;
heavy) FW=$fw BASE=$w/sg-base NEW=$w/sg-new DATA=$w/data LANES=15 STEP=${STEP:-60} STANDARD= bench/planner-cost.sh "$out" ;;
esac
rm -f "$out/rmat16k.graph"
tar czf "${OUT:-/tmp/out}/${WHAT:-std}.tgz" -C "$(dirname "$out")" "$(basename "$out")"
