#!/usr/bin/env bash
# The query server on a GPU (issue 43), in two steps.
#   scripts/server-gpu-check.sh build   here (with Rust): the release `subgraph` binary and the
#       test executable of subgraph-server's tests/server.rs, stripped, with
#       scripts/server-gpu-check.py, into .device-bin-server (git-ignored).
#   scripts/server-gpu-check.sh run     on the GPU machine, from the repository root (HPRD at
#       tests/data/hprd), .device-bin-server carried: the executable's `gpu_` tests with
#       SUBGRAPH_REQUIRE_GPU=1 (CPU queries under auto answered while a GPU query runs; a real
#       kernel fault, an illegal address on device 0's context, answered device_fault and the
#       CPU serving on while the device is degraded, as /metrics and /v1/health say; a query
#       with the device's memory taken answered, the device kept in service; the faulted
#       process asks its link for a successor), then server-gpu-check.py against the binary
#       (`serve --device auto --gpus 1` over HPRD, `--gpus` beyond the host's devices, a
#       restart and a killed process handed over under `--device gpu`, `--gpus 2` on a host
#       with two). The last line is `N passed, N failed` of the script;
#       the exit status is 1 where either step failed.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.device-bin-server"

build() {
    set -e
    cd "$root"
    local target=${CARGO_TARGET_DIR:-$root/target}
    cargo build --release --bin subgraph
    local exe
    exe=$(cargo test --release --no-run -p subgraph-server --test server 2>&1 | sed -n 's/.*Executable .* (\(.*\))$/\1/p')
    rm -rf "$bin"
    mkdir -p "$bin"
    cp "$target/release/subgraph" "$bin/subgraph"
    cp "$exe" "$bin/server-tests"
    cp "$root/scripts/server-gpu-check.py" "$bin/"
    strip --strip-debug "$bin/subgraph" "$bin/server-tests"
    du -sh "$bin"
}

run() {
    cd "$root"
    nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv || true
    local failed=0
    SUBGRAPH_REQUIRE_GPU=1 timeout 600 "$bin/server-tests" gpu_ --test-threads 1 --nocapture || failed=1
    timeout 600 python3 "$bin/server-gpu-check.py" "$bin/subgraph" tests/data/hprd/HPRD.graph || failed=1
    return $failed
}

case "${1:-}" in
build) build ;;
run) run ;;
*)
    echo "usage: $0 build|run" >&2
    exit 2
    ;;
esac
