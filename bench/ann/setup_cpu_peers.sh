#!/usr/bin/env bash
# Installs the CPU peers (faiss-cpu, hnswlib) for bench/ann/cpu_peers.py from carried files, with
# no network: on the GPU machine, from the repository root, after carrying .whl/:
#
#   bench/ann/setup_cpu_peers.sh [SITE_DIR]      # default /tmp/annsite
#   export PYTHONPATH=SITE_DIR
#
# .whl/faiss_cpu-*.whl        faiss-cpu (abi3 wheel; needs numpy and packaging, both on that machine)
# .whl/hnswlib-*.tar.gz       hnswlib's sdist (PyPI has no hnswlib wheel for CPython 3.12): built
#                             here with g++ -O3 -march=native against the machine's numpy and
#                             pybind11 (--no-build-isolation), as upstream's setup.py does
# .whl/fallback/chroma_hnswlib-*.whl   Chroma's prebuilt fork of hnswlib (module `hnswlib`, no
#                             -march=native), installed only if the sdist build fails;
#                             cpu_peers.py then names the system 'chroma-hnswlib'
# Environment: PYTHON [python3], WHL_DIR [.whl]. Every step runs under `timeout`.
set -euo pipefail
die() { echo "setup_cpu_peers.sh: ERROR: $*" >&2; exit 1; }
PY=${PYTHON:-python3}
WHL=${WHL_DIR:-.whl}
SITE=${1:-/tmp/annsite}
[ -d "$WHL" ] || die "no $WHL folder (carry .whl; see bench/ann/README.md)"
mkdir -p "$SITE"
PIP="$PY -m pip install -q --no-index --no-deps --no-cache-dir --upgrade --target $SITE"

F=$(ls "$WHL"/faiss_cpu-*.whl 2>/dev/null | head -n 1) || true
[ -n "$F" ] || die "no faiss_cpu wheel in $WHL"
timeout 300 $PIP --no-compile "$F" || die "installing $F failed"

H=$(ls "$WHL"/hnswlib-*.tar.gz 2>/dev/null | head -n 1) || true
if [ -n "$H" ] && timeout 900 $PIP --no-build-isolation "$H"; then
  echo "setup_cpu_peers.sh: built $(basename "$H") with -march=native"
else
  C=$(ls "$WHL"/fallback/chroma_hnswlib-*.whl 2>/dev/null | head -n 1) || true
  [ -n "$C" ] || die "building hnswlib from ${H:-its sdist (missing)} failed and there is no fallback wheel"
  echo "setup_cpu_peers.sh: WARNING: building hnswlib failed; installing Chroma's fork $(basename "$C") instead" >&2
  timeout 300 $PIP --no-compile "$C" || die "installing $C failed"
fi

PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}" timeout 120 "$PY" - <<'EOF' || die "the peers do not import"
import importlib.metadata as md, hnswlib, faiss, numpy
def v(*names):
    for n in names:
        try:
            return f"{n} {md.version(n)}"
        except md.PackageNotFoundError:
            pass
    return "?"
print("setup_cpu_peers.sh: OK:", v("hnswlib", "chroma-hnswlib"), "|", v("faiss-cpu"),
      faiss.get_compile_options(), "| numpy", numpy.__version__)
EOF
echo "export PYTHONPATH=$SITE"
