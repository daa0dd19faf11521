#!/usr/bin/env bash
# Runs every fuzz target binary of DIR/bin (a bundle of scripts/fuzz-build.sh, or
# fuzz/target/x86_64-unknown-linux-gnu/release with DIR/corpus absent) at once, each over its
# own copy of DIR/corpus/<target>, for SECONDS, with JOBS libFuzzer jobs per target (JOBS=1: one
# process; more: -jobs=JOBS -workers=JOBS), -rss_limit_mb=2048 -timeout=10.
#
#   scripts/fuzz-run.sh DIR SECONDS JOBS [OUT]      (OUT defaults to $OUT, else ./fuzz-out)
#
# Writes OUT/<target>/corpus (the grown corpus), OUT/<target>/artifacts (crash-*, oom-*,
# timeout-*, leak-*: each a reproducer), OUT/<target>/log (libFuzzer's output; with several
# jobs, each job's fuzz-N.log beside it) and OUT/summary.txt (per target: execs, coverage,
# artifacts, the final stats line). Exits 1 when any target left an artifact or failed.
set -euo pipefail

[ $# -ge 3 ] && [ $# -le 4 ] || { echo "usage: $0 DIR SECONDS JOBS [OUT]" >&2; exit 2; }
dir=$(cd "$1" && pwd)
seconds=$2
jobs=$3
out=${4:-${OUT:-fuzz-out}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$dir/bin
[ -d "$bin" ] || bin=$dir

targets=()
for f in "$bin"/*; do
    if [ -f "$f" ] && [ -x "$f" ] && [[ $(basename "$f") != *.* ]]; then
        targets+=("$(basename "$f")")
    fi
done
[ ${#targets[@]} -gt 0 ] || { echo "no fuzz target binaries in $bin" >&2; exit 2; }
# One rayon thread per fuzzing process unless set (the targets default to it too).
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1}

flags=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10)
pids=()
for t in "${targets[@]}"; do
    work=$out/$t
    mkdir -p "$work/corpus" "$work/artifacts"
    if [ -d "$dir/corpus/$t" ]; then
        cp -r "$dir/corpus/$t/." "$work/corpus/"
    fi
    (
        cd "$work"
        if [ "$jobs" -gt 1 ]; then
            # Jobs run in parallel and write fuzz-N.log here; each stops after SECONDS.
            "$bin/$t" "${flags[@]}" -jobs="$jobs" -workers="$jobs" -artifact_prefix="$work/artifacts/" corpus \
                > log 2>&1
        else
            "$bin/$t" "${flags[@]}" -artifact_prefix="$work/artifacts/" corpus > log 2>&1
        fi
    ) &
    pids+=($!)
    echo "started $t ($jobs job(s), ${seconds}s): $work"
done

failed=()
for i in "${!targets[@]}"; do
    wait "${pids[$i]}" || failed+=("${targets[$i]}")
done

summary() {
    printf '%-20s %14s %8s %10s  %s\n' target execs cov artifacts "last stats line"
    for t in "${targets[@]}"; do
        work=$out/$t
        # With several jobs, the jobs' own logs (the main log repeats them).
        logs=("$work/log")
        if [ "$jobs" -gt 1 ]; then logs=("$work"/fuzz-*.log); fi
        # Each process's last stats line ("#EXECS DONE|pulse|NEW ... cov: C ft: ..."): execs
        # are summed over jobs, coverage is the largest.
        execs=0 cov=0 last=""
        for l in "${logs[@]}"; do
            line=$(grep -aE '^#[0-9]+' "$l" | tail -n 1 || true)
            [ -n "$line" ] || continue
            last=$line
            execs=$((execs + $(sed -E 's/^#([0-9]+).*/\1/' <<<"$line")))
            c=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$line")
            if [ -n "$c" ] && [ "$c" -gt "$cov" ]; then cov=$c; fi
        done
        artifacts=$(find "$work/artifacts" -type f | wc -l)
        printf '%-20s %14s %8s %10s  %s\n' "$t" "$execs" "$cov" "$artifacts" "$last"
        if [ "$artifacts" -gt 0 ]; then
            echo "CRASH: $t left $artifacts reproducer(s) in $work/artifacts"
        fi
    done
    for t in "${failed[@]}"; do
        echo "FAILED: $t exited non-zero (see $out/$t/log)"
    done
}
summary | tee "$out/summary.txt"
! grep -qE '^(CRASH|FAILED):' "$out/summary.txt"
