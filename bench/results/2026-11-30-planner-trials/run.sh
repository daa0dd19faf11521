#!/usr/bin/env bash
# The device call of 2026-11-30 (issue 45): the Sun & Luo framework, main before (sg-base,
# 3af051d) and after (sg-new) on the H200 host's CPU, one thread each, 15 lanes, through
# bench/planner-cost.sh. Run from the repository root with .device-bin carried:
#   sg-base, sg-new (stripped release binaries), fw-v3 (the framework built here for x86-64-v3,
#   used where the host has no g++), sl/ (its sources), data.tgz (data/{yeast,hprd,wordnet}/, packed:
#   the call's tree is measured in disk blocks, and 5,400 small query files fill many).
set -uo pipefail
b=.device-bin
[ -d $b/data ] || tar xzf $b/data.tgz -C $b
out=${OUT:-/tmp/out}/run
mkdir -p "$out"
{ nproc; lscpu | grep -E 'Model name|MHz|L3'; free -g | head -2; } >"$out/host.txt" 2>&1
fw=$b/fw-v3
if command -v g++ >/dev/null; then
    (cd $b/sl && g++ -std=c++11 -O3 -march=native -pthread -DENABLE_FAILING_SET -I. \
        matching/{matchingcommand,FilterVertices,BuildTable,GenerateQueryPlan,EvaluateQuery,GenerateFilteringPlan,StudyPerformance}.cpp \
        graph/graph.cpp utility/{graphoperations,commandparser,computesetintersection,bitsetoperation}.cpp \
        utility/han/intersection_algos.cpp utility/han/utils/util.cpp -Wl,--allow-multiple-definition \
        -o /tmp/fw-native) && fw=/tmp/fw-native
fi
echo "framework: $fw" >>"$out/host.txt"
FW=$fw BASE=$b/sg-base NEW=$b/sg-new DATA=$b/data LANES=15 STEP=${STEP:-55} bench/planner-cost.sh "$out"
rm -f "$out/rmat16k.graph"
tar czf "${OUT:-/tmp/out}/run.tgz" -C "$(dirname "$out")" run
