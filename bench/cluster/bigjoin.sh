#!/usr/bin/env bash
# BiGJoin (frankmcsherry/dataflow-join, timely dataflow) beside `subgraph`, on the same
# unlabelled graphs and patterns (triangle, 4-clique), 1 process x T threads and P processes
# over loopback. Needs only bash, python3, coreutils' `timeout` and the two programs' binaries,
# so it runs on a machine without Rust or network.
# The BiGJoin binaries must be built with bigjoin.patch (beside this script; how, at its top):
# unpatched, on current rustc, the lean examples miscount and several processes can hang.
#
#   bigjoin.sh prepare OUT SUBGRAPH GRAPH...
#       GRAPH: t/v/e text graphs (labels ignored). For each, named by its file name without
#       extension, lower-cased: OUT/NAME.{offsets,targets} (graph-map format, both directions),
#       OUT/NAME-dag.{offsets,targets} (each edge once, ids renumbered by degree, small -> large),
#       OUT/NAME.sgb (unlabelled, for subgraph), and OUT/triangle.graph, OUT/clique4.graph.
#       Uses bigjoin-graph.py beside this script.
#   bigjoin.sh run PREP BIGJOIN SUBGRAPH
#       BIGJOIN: the folder of dataflow-join's example binaries (target/release/examples), or one
#       binary in it. Prints a header, then one line per run:
#         system graph pattern processes threads count wall_s
#       count is the number of embeddings (ordered matches: 6 per triangle, 24 per 4-clique)
#       for every system; TIMEOUT or ERROR(rc) when a run did not finish. wall_s is the wall
#       time of the whole run (loading included), from starting the first process to the end
#       of the last. Logs go to $LOGS (default PREP/logs).
#
# Systems (SYSTEMS, default "subgraph bigjoin bigjoin-dag"):
#   subgraph     `subgraph match NAME.sgb` (1 process) or `--local-processes P` over
#                NAME-pP/manifest.json (made here by `subgraph partition` when missing).
#   bigjoin      BiGJoin on NAME (symmetric): its K3/K4 dataflows count ordered matches
#                directly, the same number as subgraph's "embeddings".
#   bigjoin-dag  BiGJoin on NAME-dag (each edge once, low to high degree): it counts each
#                triangle / 4-clique once; the line shows that count times 6 / 24.
# BiGJoin binaries (BIGJOIN_VARIANT): lean (default: static BiGJoin, `triangles-lean`,
# `q3-lean`: index the whole graph, then extend every edge) or delta (`triangles`,
# `four-cliques`: Delta-BiGJoin, the edges streamed in as insertions). Both take
# `PREFIX BATCH inspect [timely args]`; BATCH (BIGJOIN_BATCH, default 1000) is the number of
# source vertices whose edges enter per round. Several processes: timely's `-n P -p I -w T
# -h HOSTS`, HOSTS listing 127.0.0.1:PORT from BIGJOIN_PORT (default 2101) on; each process
# prints its own total, which are added up.
#
# Other settings: THREADS (default "1 2"), PROCS (process counts above 1, default "2"; "" for
# none), GRAPHS (names in PREP, default all NAME.sgb there), PATTERNS (default
# "triangle clique4"), TIMEOUT (seconds per run, default 600), REPEAT (default 1: one line per
# repetition), SUBGRAPH_ARGS (extra arguments for subgraph match), PARTITION_ARGS (extra
# arguments for subgraph partition, e.g. "--vertex-order file"; its parts are kept apart; the
# default numbering is auto: by degree on these unlabelled graphs).
set -u

die() { echo "bigjoin.sh: $*" >&2; exit 2; }

now() {
    if [ -n "${EPOCHREALTIME:-}" ]; then echo "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi
}
elapsed() { python3 -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }

prepare() {
    [ $# -ge 3 ] || die "usage: bigjoin.sh prepare OUT SUBGRAPH GRAPH..."
    local out=$1 sg=$2; shift 2
    local here; here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    mkdir -p "$out" || die "cannot create $out"
    printf 't 3 3\nv 0 0 2\nv 1 0 2\nv 2 0 2\ne 0 1\ne 0 2\ne 1 2\n' > "$out/triangle.graph"
    printf 't 4 6\nv 0 0 3\nv 1 0 3\nv 2 0 3\nv 3 0 3\ne 0 1\ne 0 2\ne 0 3\ne 1 2\ne 1 3\ne 2 3\n' \
        > "$out/clique4.graph"
    local g name
    for g in "$@"; do
        name=$(basename "$g"); name=${name%.*}; name=${name,,}
        python3 "$here/bigjoin-graph.py" "$g" "$out/$name" --mode sym || die "conversion of $g failed"
        python3 "$here/bigjoin-graph.py" "$g" "$out/$name-dag" --mode lt --reorder || die "conversion of $g failed"
        python3 - "$g" "$out/$name-unl.graph" <<'PY' || die "cannot write $out/$name-unl.graph"
import sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as o:
    for line in f:
        p = line.split()
        if p and p[0] == "v":
            o.write("v %s 0 %s\n" % (p[1], p[3] if len(p) > 3 else 0))
        elif p and p[0] == "e":
            o.write("e %s %s\n" % (p[1], p[2]))
        elif p:
            o.write(line)
PY
        "$sg" convert "$out/$name-unl.graph" "$out/$name.sgb" >&2 || die "subgraph convert of $g failed"
        rm -f "$out/$name-unl.graph"
    done
}

# Waits (at most 5 s) until something listens on 127.0.0.1:$1.
wait_listen() {
    local hex; hex=$(printf '%04X' "$1")
    local i
    for ((i = 0; i < 500; i++)); do
        grep -qE "^ *[0-9]+: [0-9A-F]+:$hex [0-9A-F]+:[0-9A-F]+ 0A " /proc/net/tcp /proc/net/tcp6 \
            2>/dev/null && return 0
        sleep 0.01
    done
    return 1
}

PORT_NEXT=0

# Forgets a finished run's pid (so that the exit trap never signals a reused pid).
done_pid() { sed -i "/^$1\$/d" "$RUNNING"; }

# run_bigjoin BIN PREFIX PROCS THREADS MULT -> prints "count wall"
run_bigjoin() {
    local bin=$1 prefix=$2 procs=$3 threads=$4 mult=$5
    local log=$LOGS/bigjoin-$(basename "$prefix")-$(basename "$bin")-n$procs-w$threads
    local t0 t1 rc=0 i
    if [ "$procs" -eq 1 ]; then
        t0=$(now)
        timeout "$TIMEOUT" "$bin" "$prefix" "$BATCH" inspect -w "$threads" > "$log.0.out" 2>&1 &
        echo $! >> "$RUNNING"
        wait $! || rc=$?
        t1=$(now)
        done_pid $!
    else
        local hosts=$log.hosts
        : > "$hosts"
        for ((i = 0; i < procs; i++)); do echo "127.0.0.1:$((PORT_NEXT + i))" >> "$hosts"; done
        local pids=()
        t0=$(now)
        for ((i = 0; i < procs; i++)); do
            timeout "$TIMEOUT" "$bin" "$prefix" "$BATCH" inspect -w "$threads" -n "$procs" -p "$i" \
                -h "$hosts" > "$log.$i.out" 2>&1 &
            pids+=($!)
            echo $! >> "$RUNNING"
            # process i listens for i+1..; start those once it does (else they retry after 1 s)
            [ $i -lt $((procs - 1)) ] && wait_listen $((PORT_NEXT + i))
        done
        for i in "${pids[@]}"; do
            local r=0; wait "$i" || r=$?
            [ $r -ne 0 ] && [ $rc -eq 0 ] && rc=$r
        done
        t1=$(now)
        for i in "${pids[@]}"; do done_pid "$i"; done
        PORT_NEXT=$((PORT_NEXT + procs))
    fi
    local wall; wall=$(elapsed "$t0" "$t1")
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo "TIMEOUT $wall"; return; fi
    if [ $rc -ne 0 ]; then echo "ERROR($rc) $wall"; return; fi
    local total
    total=$(cat "$log".*.out | sed -n 's/.*total .* at this process: \([0-9][0-9]*\).*/\1/p' |
        awk -v m="$mult" '{s += $1; n++} END {if (n) printf "%.0f", s * m}')
    [ -n "$total" ] || total="ERROR(nocount)"
    echo "$total $wall"
}

# run_subgraph GRAPHNAME PATTERN PROCS THREADS -> prints "count wall"
run_subgraph() {
    local name=$1 pat=$2 procs=$3 threads=$4
    local log=$LOGS/subgraph-$name-$pat-n$procs-w$threads.out
    local data args=() t0 t1 rc=0
    if [ "$procs" -eq 1 ]; then
        data=$PREP/$name.sgb
        args=(--device cpu --threads "$threads")
    else
        local dir=$PARTS/$name-p$procs${PARTITION_ARGS:+-$(echo "$PARTITION_ARGS" | tr -c 'a-z0-9\n' -)}
        data=$dir/manifest.json
        if [ ! -f "$data" ]; then
            # shellcheck disable=SC2086
            "$SUBGRAPH" partition "$PREP/$name.sgb" --parts "$procs" --output "$dir" ${PARTITION_ARGS:-} \
                > /dev/null 2>&1 || { echo "ERROR(partition) 0"; return; }
        fi
        args=(--local-processes "$procs" --threads "$threads")
    fi
    t0=$(now)
    # shellcheck disable=SC2086
    timeout "$TIMEOUT" "$SUBGRAPH" match "$data" "$PREP/$pat.graph" "${args[@]}" --format json -q \
        ${SUBGRAPH_ARGS:-} > "$log" 2>&1 &
    echo $! >> "$RUNNING"
    wait $! || rc=$?
    t1=$(now)
    done_pid $!
    local wall; wall=$(elapsed "$t0" "$t1")
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo "TIMEOUT $wall"; return; fi
    if [ $rc -ne 0 ]; then echo "ERROR($rc) $wall"; return; fi
    local count
    count=$(grep -o '"embeddings":[0-9]*' "$log" | head -1 | cut -d: -f2)
    grep -q '"complete":false' "$log" && count="INCOMPLETE:$count"
    echo "${count:-ERROR(nocount)} $wall"
}

run() {
    [ $# -eq 3 ] || die "usage: bigjoin.sh run PREP BIGJOIN SUBGRAPH"
    PREP=$1
    local bj=$2
    SUBGRAPH=$3
    [ -d "$bj" ] || bj=$(dirname "$bj")
    [ -x "$SUBGRAPH" ] || die "$SUBGRAPH is not executable"
    LOGS=${LOGS:-$PREP/logs}
    mkdir -p "$LOGS" || die "cannot create $LOGS"
    # `timeout` puts each run in a process group of its own: stop the runs still going when
    # this script is interrupted (timeout passes the signal on to its group).
    RUNNING=$LOGS/.running-$$
    : > "$RUNNING"
    trap 'xargs -r kill 2>/dev/null < "$RUNNING"; rm -f "$RUNNING"' EXIT
    trap 'exit 130' INT TERM
    PARTS=$PREP
    [ -w "$PARTS" ] || PARTS=$(mktemp -d)
    TIMEOUT=${TIMEOUT:-600}
    BATCH=${BIGJOIN_BATCH:-1000}
    PORT_NEXT=${BIGJOIN_PORT:-2101}
    local variant=${BIGJOIN_VARIANT:-lean}
    local bin_tri bin_k4
    case $variant in
        lean) bin_tri=$bj/triangles-lean; bin_k4=$bj/q3-lean ;;
        delta) bin_tri=$bj/triangles; bin_k4=$bj/four-cliques ;;
        *) die "BIGJOIN_VARIANT must be lean or delta" ;;
    esac
    local graphs=${GRAPHS:-}
    if [ -z "$graphs" ]; then
        local f
        for f in "$PREP"/*.sgb; do [ -f "$f" ] && graphs+=" $(basename "${f%.sgb}")"; done
    fi
    [ -n "$graphs" ] || die "no graphs in $PREP (run prepare first)"
    local configs=() t p
    for t in ${THREADS:-1 2}; do configs+=("1:$t"); done
    for p in ${PROCS-2}; do for t in ${THREADS:-1 2}; do configs+=("$p:$t"); done; done

    echo "system graph pattern processes threads count wall_s"
    local g pat c sys r bin mult res
    for g in $graphs; do
        for pat in ${PATTERNS:-triangle clique4}; do
            case $pat in
                triangle) bin=$bin_tri; mult=6 ;;
                clique4) bin=$bin_k4; mult=24 ;;
                *) die "unknown pattern $pat (triangle, clique4)" ;;
            esac
            for c in "${configs[@]}"; do
                p=${c%%:*}; t=${c#*:}
                for sys in ${SYSTEMS:-subgraph bigjoin bigjoin-dag}; do
                    for ((r = 0; r < ${REPEAT:-1}; r++)); do
                        case $sys in
                            subgraph) res=$(run_subgraph "$g" "$pat" "$p" "$t") ;;
                            bigjoin) [ -x "$bin" ] || die "$bin is not executable"
                                res=$(run_bigjoin "$bin" "$PREP/$g" "$p" "$t" 1) ;;
                            bigjoin-dag) [ -x "$bin" ] || die "$bin is not executable"
                                res=$(run_bigjoin "$bin" "$PREP/$g-dag" "$p" "$t" "$mult") ;;
                            *) die "unknown system $sys" ;;
                        esac
                        # run_bigjoin's port counter lives in a subshell: step it here too
                        [ "$sys" != subgraph ] && [ "$p" -gt 1 ] && PORT_NEXT=$((PORT_NEXT + p))
                        echo "$sys $g $pat $p $t $res"
                    done
                done
            done
        done
    done
}

case ${1:-} in
    prepare) shift; prepare "$@" ;;
    run) shift; run "$@" ;;
    *) sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
