#!/usr/bin/env bash
# Cold and warm first iterations in fresh processes (issue 4): each program runs once on an empty
# cache directory (cold), then again on the directory it filled (warm). The kernels50 program
# also runs cold with one compile thread, which gives the slowest single kernel's compile time, and
# the quickstart cold without the kernels the library ships.
# lazyfuse compiles with NVRTC's own cache off (--no-cache), but every cold run still gets an
# empty CUDA driver compute cache (CUDA_CACHE_PATH), so that nothing an earlier run left there
# can answer a compile.
#   bench/startup.sh [path/to/bench_startup]
set -euo pipefail
bench=${1:-build/bench/bench_startup}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for program in quickstart kernels50 sin20; do
  export CUDA_CACHE_PATH="$dir/$program-driver"
  LAZY_CACHE_DIR="$dir/$program" "$bench" "$program" | sed 's/^/cold  /'
  LAZY_CACHE_DIR="$dir/$program" "$bench" "$program" | sed 's/^/warm  /'
done
# The quickstart cold again without the kernels the library ships: its inputs compile too.
CUDA_CACHE_PATH="$dir/unshipped-driver" LAZY_SHIPPED_KERNELS=0 LAZY_CACHE_DIR="$dir/unshipped" \
  "$bench" quickstart | sed 's/^/unshipped /'
CUDA_CACHE_PATH="$dir/serial-driver" LAZY_COMPILE_THREADS=1 LAZY_CACHE_DIR="$dir/serial" \
  "$bench" kernels50 | sed 's/^/serial /'
