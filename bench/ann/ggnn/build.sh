#!/usr/bin/env bash
# Build GGNN's ggnn_benchmark (examples/cpp-and-cuda/ggnn_benchmark.cpp) offline:
# Release, sm_90 only, glog/gflags from the kit's src/ (no download), no Python bindings.
# Usage: bash build.sh            (env: GGNN_BUILD_DIR=/tmp/ggnn-build, JOBS=16,
#                                  GGNN_ARCH=90, BUILD_TIMEOUT=300)
set -euo pipefail
KIT="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$KIT/../../.." && pwd)"
if [ -n "${GGNN_SRC:-}" ]; then SRC="$(cd "$GGNN_SRC" && pwd)"
elif [ -d "$ROOT/.peers/ggnn/src/ggnn" ]; then SRC="$ROOT/.peers/ggnn/src"
else SRC="$KIT/src"; fi
BUILD_DIR="${GGNN_BUILD_DIR:-/tmp/ggnn-build}"
JOBS="${JOBS:-16}"
ARCH="${GGNN_ARCH:-90}"
T0=$(date +%s.%N)

# --- toolchain ---------------------------------------------------------------
if ! command -v nvcc >/dev/null 2>&1; then
  for d in /usr/local/cuda/bin /usr/local/cuda-13*/bin /opt/cuda/bin; do
    if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; break; fi
  done
fi
command -v nvcc >/dev/null 2>&1 || { echo "ERROR: nvcc not found" >&2; exit 1; }
export CUDACXX="${CUDACXX:-$(command -v nvcc)}"
echo "== nvcc: $CUDACXX"; nvcc --version | tail -n 2
echo "== c++ : $(command -v g++) $(g++ -dumpfullversion 2>/dev/null || true)"
echo "== cmake: $(cmake --version | head -n 1)"
GEN=()
if command -v ninja >/dev/null 2>&1; then GEN=(-G Ninja); echo "== ninja $(ninja --version)"; fi

# Probe nvcc + host compiler once (a few seconds):
# * CUDA >= 13 defaults to -static-global-template-stub=true: host stubs of __global__ templates get
#   internal linkage, and GGNN launches kernel templates that are explicitly instantiated in another
#   .cu file (query<> from query_layer.cu is launched in query_kernels.cu) -> "undefined reference to
#   void ggnn::query<...>" when linking libGGNNQuery.so (reproduced with nvcc 13.0.88). Turn it off
#   wherever nvcc knows the option.
# * nvcc refuses host compilers newer than it supports; only then add -allow-unsupported-compiler.
PROBE_DIR="$(mktemp -d /tmp/ggnn-probe.XXXXXX)"
printf '#include <cuda_runtime.h>\ntemplate <int N> __global__ void k(float* x){x[threadIdx.x]*=N;}\ntemplate __global__ void k<2>(float*);\nint main(){return 0;}\n' \
  > "$PROBE_DIR/p.cu"
probe() { timeout 60 nvcc -std=c++20 -arch="sm_${ARCH%%-*}" "$@" -c "$PROBE_DIR/p.cu" -o "$PROBE_DIR/p.o" > "$PROBE_DIR/log" 2>&1; }
CUDA_REL_FLAGS="-O3 -DNDEBUG"
for attempt in 1 2; do
  if probe -static-global-template-stub=false; then
    CUDA_REL_FLAGS="$CUDA_REL_FLAGS -static-global-template-stub=false"; break
  elif probe; then
    break
  elif [ "$attempt" = 1 ] && grep -qi 'unsupported .*version' "$PROBE_DIR/log"; then
    cat "$PROBE_DIR/log" >&2
    echo "== host compiler not supported by this nvcc: adding -allow-unsupported-compiler" >&2
    export NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:-} -allow-unsupported-compiler"
  else
    cat "$PROBE_DIR/log" >&2; echo "ERROR: nvcc cannot compile a trivial C++20 .cu file" >&2; exit 1
  fi
done
echo "== CMAKE_CUDA_FLAGS_RELEASE: $CUDA_REL_FLAGS ${NVCC_APPEND_FLAGS:+(NVCC_APPEND_FLAGS=$NVCC_APPEND_FLAGS)}"
rm -rf "$PROBE_DIR"

# --- configure ---------------------------------------------------------------
# Options and where they are defined (see README.txt):
#  GGNN_CUDA_ARCHITECTURES       ggnn/CMakeLists.txt (copied into CMAKE_CUDA_ARCHITECTURES)
#  FETCHCONTENT_*                CMake FetchContent; ggnn declares glog/gflags with FIND_PACKAGE_ARGS,
#                                so an installed glog/gflags would be preferred if one exists.
#  CMAKE_POLICY_VERSION_MINIMUM  needed by CMake >= 4 for gflags 2.2.2 (cmake_minimum_required 3.0.2);
#                                ignored (one warning) by CMake 3.x
#  BUILD_TESTING/WITH_GTEST      glog tests off (test sources were removed from the kit)
#  WITH_GFLAGS=OFF               glog is configured before gflags anyway; OFF also avoids glog picking up
#                                a system libgflags while ggnn links the kit's static gflags
#  WITH_UNWIND=none              glog: no libunwind dependency
#  CMAKE_DISABLE_FIND_PACKAGE_Python  Python_FOUND stays false -> no nanobind module
#  CMAKE_CUDA_FLAGS_RELEASE      CMake's default "-O3 -DNDEBUG" (+ the stub flag above); ggnn's
#                                CMakeLists overwrites CMAKE_CUDA_FLAGS, not the _RELEASE variant
case "$BUILD_DIR" in /|/tmp|"") echo "ERROR: refusing GGNN_BUILD_DIR=$BUILD_DIR" >&2; exit 1;; esac
if [ -e "$BUILD_DIR" ] && [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  echo "ERROR: $BUILD_DIR exists and is not a CMake build dir; refusing to delete it" >&2; exit 1
fi
rm -rf "$BUILD_DIR"
T1=$(date +%s.%N)
timeout 120 cmake -S "$SRC/ggnn" -B "$BUILD_DIR" ${GEN[@]+"${GEN[@]}"} \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$CUDACXX" \
  -DGGNN_CUDA_ARCHITECTURES="$ARCH" \
  -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
  -DCMAKE_CUDA_FLAGS_RELEASE="$CUDA_REL_FLAGS" \
  -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
  -DFETCHCONTENT_SOURCE_DIR_GLOG="$SRC/glog" \
  -DFETCHCONTENT_SOURCE_DIR_GFLAGS="$SRC/gflags" \
  -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
  -DBUILD_TESTING=OFF \
  -DWITH_GTEST=OFF \
  -DWITH_GFLAGS=OFF \
  -DWITH_UNWIND=none \
  -DWITH_PKGCONFIG=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_Python=ON \
  2>&1 | tee "$BUILD_DIR.configure.log"
T2=$(date +%s.%N)
grep -q 'gflags not found' "$BUILD_DIR.configure.log" && {
  echo "ERROR: ggnn did not find gflags; ggnn_benchmark target not generated" >&2; exit 1; }

# libGGNNConstruction.so needs libcurand.so.10 but gets no RUNPATH to the CUDA library dir (CMake treats
# it as an implicit CUDA link dir). Unless that dir is in ld.so.conf, both the final link of
# ggnn_benchmark and its start-up need it: put it on LD_LIBRARY_PATH and record it for run.sh.
CURAND_LIB="$(sed -n 's/^CUDA_curand_LIBRARY:FILEPATH=//p' "$BUILD_DIR/CMakeCache.txt")"
CUDA_LIB_DIR="$(dirname "$(readlink -f "$CURAND_LIB")")"
export LD_LIBRARY_PATH="$CUDA_LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "export LD_LIBRARY_PATH=\"$CUDA_LIB_DIR\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\"" > "$BUILD_DIR/kit-env.sh"
echo "== curand: $CURAND_LIB (lib dir $CUDA_LIB_DIR)"

# --- build only the benchmark --------------------------------------------------
timeout "${BUILD_TIMEOUT:-300}" cmake --build "$BUILD_DIR" --target ggnn_benchmark -j "$JOBS" \
  2>&1 | tee "$BUILD_DIR.build.log" | grep -vE '^\[[0-9]+/[0-9]+\] (Building|Linking)' || true
T3=$(date +%s.%N)
BIN="$BUILD_DIR/ggnn_benchmark"
[ -x "$BIN" ] || { echo "ERROR: build failed, see $BUILD_DIR.build.log" >&2; tail -n 60 "$BUILD_DIR.build.log" >&2; exit 1; }
ls -la "$BIN"
ldd "$BIN" | grep -E 'GGNN|glog|gflags|cuda|curand|not found' || true
awk -v a="$T0" -v b="$T1" -v c="$T2" -v d="$T3" 'BEGIN{
  printf "== probe %.1f s, configure %.1f s, build %.1f s, total wall %.1f s\n", b-a, c-b, d-c, d-a }'
echo "== binary: $BIN"
