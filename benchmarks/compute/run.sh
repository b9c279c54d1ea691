#!/bin/bash
# Builds and runs benchmarks/compute/libraries.cc: single-threaded GFLOPS of
# Eigen, OpenBLAS, oneDNN and XNNPACK (Debian's packages, installed by
# scripts/install-deps.sh) on the MLP's and ResNet-18's GEMM and convolution
# shapes. Usage: benchmarks/compute/run.sh [ROUNDS]   (default 21)
set -euo pipefail
cd "$(dirname "$0")"
for header in /usr/include/eigen3/Eigen/Core /usr/include/x86_64-linux-gnu/cblas.h /usr/include/oneapi/dnnl/dnnl.hpp \
              /usr/include/xnnpack.h /usr/include/pthreadpool.h; do
  if [ ! -e "$header" ]; then
    echo "missing $header: apt-get install libeigen3-dev libopenblas-dev libdnnl-dev libxnnpack-dev libpthreadpool-dev" >&2
    exit 1
  fi
done
# BUILD_ONLY=PATH: only build the binary there (benchmarks/compute/kernels.py
# runs it between its own rounds).
if [ -n "${BUILD_ONLY:-}" ]; then
  g++ -std=c++20 -O3 -march=native -DNDEBUG -I/usr/include/eigen3 libraries.cc -o "$BUILD_ONLY" \
    -lopenblas -ldnnl -lXNNPACK
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
g++ -std=c++20 -O3 -march=native -DNDEBUG -I/usr/include/eigen3 libraries.cc -o "$out/libraries" \
  -lopenblas -ldnnl -lXNNPACK
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$out/libraries" "${1:-21}"
