#!/usr/bin/env bash
# Builds and runs bench/libtorch/bench_libtorch_epilogue on the GPU machine, against the device
# bundle's lazyfuse and the LibTorch inside the machine's PyTorch wheel, as .ci/libtorch-test does
# for the test. From the repository root with .device carried:
#   bash bench/libtorch_device.sh
set -euo pipefail
cd "$(dirname "$0")/.."
torch=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')
abi=$(python3 -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
cudart=$(ls "$torch"/../nvidia/cu*/lib/libcudart.so.* 2>/dev/null | head -1 || true)
cudart=${cudart:-/usr/local/cuda/lib64/libcudart.so}
out=${TMPDIR:-/tmp}/lazyfuse-libtorch-bench
mkdir -p "$out"
g++ -std=c++20 -O2 -Wno-interference-size -D_GLIBCXX_USE_CXX11_ABI="$abi" \
  -I include -I "$torch/include" -I "$torch/include/torch/csrc/api/include" \
  -I /usr/local/cuda/include \
  bench/libtorch/bench_libtorch_epilogue.cpp -o "$out/bench_libtorch_epilogue" \
  -L .device/lib -l:liblazyfuse.so.0 -pthread \
  -L "$torch/lib" -Wl,--no-as-needed -ltorch -ltorch_cpu -ltorch_cuda -lc10 -lc10_cuda \
  "$cudart" -Wl,--as-needed \
  -Wl,-rpath,"$PWD/.device/lib" -Wl,-rpath,"$torch/lib" -Wl,-rpath,"$(dirname "$cudart")"
"$out/bench_libtorch_epilogue"
