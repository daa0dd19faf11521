#!/usr/bin/env bash
# Builds every fuzz target (cargo-fuzz's default: optimised, debug assertions and overflow
# checks on, AddressSanitizer) and copies the binaries, the corpus and scripts/fuzz-run.sh into
# DEST, a bundle that runs on another x86-64 Linux machine without a Rust toolchain (it needs
# libstdc++ there):
#
#   scripts/fuzz-build.sh DEST
#   # copy DEST over, then on that machine:
#   DEST/fuzz-run.sh DEST 3600 2 results/     # every target for an hour, 2 jobs each
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`). FUZZING.md
# says more.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 DEST" >&2; exit 2; }
mkdir -p "$1"
dest=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/fuzz"

triple=x86_64-unknown-linux-gnu
cargo +nightly fuzz build --target "$triple"
mkdir -p "$dest/bin" "$dest/corpus"
for t in $(cargo +nightly fuzz list); do
    # Without the DWARF sections (symbols stay, for stack traces): a tenth of the size.
    strip --strip-debug -o "$dest/bin/$t" "target/$triple/release/$t"
    rm -rf "${dest:?}/corpus/$t"
    mkdir -p "$dest/corpus/$t"
    if [ -d "corpus/$t" ]; then
        cp -r "corpus/$t/." "$dest/corpus/$t/"
    fi
done
cp "$root/scripts/fuzz-run.sh" "$dest/fuzz-run.sh"
git -C "$root" rev-parse HEAD > "$dest/COMMIT" 2>/dev/null || true
echo "built $(ls "$dest/bin" | wc -l) targets into $dest ($(du -sh "$dest" | cut -f1)); run: $dest/fuzz-run.sh $dest SECONDS JOBS [OUT]"
