#!/usr/bin/env bash
# Exports the pinned sources of the MF peers into .peers/ (git-ignored through
# .git/info/exclude; the GPU machine gets them with the device tool's `carry: [".peers/..."]`).
# Run from the repository root.
#
#   bench/mf/fetch_peers.sh libmf LIBMF_GIT         # -> .peers/libmf/     (sources, about 200 KB)
#   bench/mf/fetch_peers.sh cumf_sgd CUMF_GIT       # -> .peers/cumf_sgd/  (singleGPU/ + README, about 130 KB)
#
# *_GIT: a clone or bare git directory of github.com/cjlin1/libmf or github.com/uiuc-cumf/cumf_sgd
# (in this workplace, the search tool's `fetch github:cjlin1/libmf` gives one under
# /work/.mirror/). cumf_sgd.patch is written against the pinned CuMF_SGD commit. CuMF_SGD's
# repository has no licence file: keep it out of the repository (the patch holds only our
# changes and their context).
set -euo pipefail
die() { echo "fetch_peers.sh: ERROR: $*" >&2; exit 1; }
LIBMF_COMMIT=1498368bc79f86b59376b39751b3a72757d0624e    # 2024-05-20, LIBMF 2.01+
CUMF_COMMIT=e523b363a0f950d141eb629d1bbb815a37af1c14     # 2017-06-30, the last commit
export_commit() {  # GIT COMMIT DEST [PATHS...]
  local G=$1 C=$2 D=$3; shift 3
  local GD; GD=$(git -C "$G" rev-parse --git-dir 2>/dev/null) || GD=$G
  case "$GD" in /*) ;; *) GD="$G/$GD" ;; esac
  git --git-dir="$GD" cat-file -e "$C^{commit}" 2>/dev/null || die "$G has no commit $C"
  rm -rf "$D" && mkdir -p "$D"
  git --git-dir="$GD" archive "$C" "$@" | tar -x -C "$D"
  echo "$C" > "$D/COMMIT"
  du -sh "$D"
}
case "${1:-}" in
  libmf) [ -n "${2:-}" ] || die "usage: fetch_peers.sh libmf LIBMF_GIT"
         export_commit "$2" "$LIBMF_COMMIT" .peers/libmf Makefile mf.cpp mf.h mf.def mf-train.cpp mf-predict.cpp COPYRIGHT README ;;
  cumf_sgd) [ -n "${2:-}" ] || die "usage: fetch_peers.sh cumf_sgd CUMF_GIT"
         export_commit "$2" "$CUMF_COMMIT" .peers/cumf_sgd singleGPU README.md ;;
  *) die "usage: fetch_peers.sh libmf LIBMF_GIT | fetch_peers.sh cumf_sgd CUMF_GIT" ;;
esac
