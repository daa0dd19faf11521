#!/usr/bin/env bash
# Gathers, on a developer's machine (which reaches PyPI), what the peer benchmarks carry to the GPU
# machine (which reaches nothing). Both folders are git-ignored (.git/info/exclude: /.whl/ and
# /.peers/); run from the repository root.
#
#   bench/ann/fetch_peers.sh wheels              # -> .whl/  (about 21 MB)
#   bench/ann/fetch_peers.sh ganns GANNS_GIT     # -> .peers/ganns/  (about 100 KB)
#   bench/ann/fetch_peers.sh ggnn GGNN_GIT GLOG_GIT GFLAGS_GIT   # -> .peers/ggnn/src/  (a few MB)
#
# GANNS_GIT: a clone or bare git directory of github.com/yuyuanhang/GANNS (in this workplace, the
# search tool's `fetch github:yuyuanhang/GANNS` gives one under /work/.mirror/); the pinned
# commit is exported with `git archive`, which ganns.patch is written against.
set -euo pipefail
die() { echo "fetch_peers.sh: ERROR: $*" >&2; exit 1; }
GANNS_COMMIT=855e2cad3390acfd9c8308cb020ed5dbe69aec35
PLAT="--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64"
case "${1:-}" in
  wheels)
    mkdir -p .whl/fallback
    # faiss-cpu: abi3 wheel for CPython >= 3.10 (its other needs, numpy and packaging, are on the GPU machine)
    # shellcheck disable=SC2086
    timeout 600 python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      $PLAT -d .whl faiss-cpu==1.15.1
    # hnswlib: no wheel on PyPI for 3.12, only the sdist (built on the GPU machine by setup_cpu_peers.sh)
    timeout 600 python3 -m pip download --no-deps --no-binary hnswlib -d .whl hnswlib==0.8.0
    # fallback: Chroma's fork, prebuilt for cp312 (module name hnswlib)
    # shellcheck disable=SC2086
    timeout 600 python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      $PLAT -d .whl/fallback chroma-hnswlib==0.7.6
    du -sh .whl
    ;;
  ganns)
    G=${2:-}; [ -n "$G" ] || die "usage: fetch_peers.sh ganns GANNS_GIT"
    GD=$(git -C "$G" rev-parse --git-dir 2>/dev/null) || GD=$G
    case "$GD" in /*) ;; *) GD="$G/$GD" ;; esac
    git --git-dir="$GD" cat-file -e "$GANNS_COMMIT^{commit}" 2>/dev/null || die "$G has no commit $GANNS_COMMIT"
    rm -rf .peers/ganns && mkdir -p .peers/ganns
    git --git-dir="$GD" archive "$GANNS_COMMIT" | tar -x -C .peers/ganns
    echo "yuyuanhang/GANNS $GANNS_COMMIT" > .peers/ganns/COMMIT
    du -sh .peers/ganns
    ;;
  ggnn)
    # GGNN and the glog and gflags its CMake would download (pinned in its CMakeLists.txt), for
    # bench/ann/ggnn/build.sh; each argument a clone or bare git directory (the search tool's
    # fetch of cgtuebingen/ggnn, google/glog and gflags/gflags).
    [ $# -eq 4 ] || die "usage: fetch_peers.sh ggnn GGNN_GIT GLOG_GIT GFLAGS_GIT"
    rm -rf .peers/ggnn && mkdir -p .peers/ggnn/src
    for spec in "ggnn $2 4f8088f10747c827b3051336da6541317e2dc9bf" "glog $3 7b134a5c82c0c0b5698bb6bf7a835b230c5638e4" \
                "gflags $4 e171aa2d15ed9eb17054558e0b3a6a413bb01067"; do
      set -- $spec
      GD=$(git -C "$2" rev-parse --git-dir 2>/dev/null) || GD=$2
      case "$GD" in /*) ;; *) GD="$2/$GD" ;; esac
      git --git-dir="$GD" cat-file -e "$3^{commit}" 2>/dev/null || die "$2 has no commit $3"
      mkdir -p ".peers/ggnn/src/$1"
      git --git-dir="$GD" archive "$3" | tar -x -C ".peers/ggnn/src/$1"
      echo "$1 $3" >> .peers/ggnn/COMMITS
    done
    du -sh .peers/ggnn
    ;;
  *) die "usage: fetch_peers.sh wheels | ganns GANNS_GIT | ggnn GGNN_GIT GLOG_GIT GFLAGS_GIT" ;;
esac
