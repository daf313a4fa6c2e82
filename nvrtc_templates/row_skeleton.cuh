// Skeleton of a row kernel (reductions over trailing axes with the pointwise work around them);
// codegen fills the $-names. Each row is folded by $ROW_THREADS threads: a block, or a warp or a
// slice of one when rows are short (a warp then holds several rows, which advance together so that every
// lane takes part in each shuffle; `active` is false for a row past the end).
#include "lz_device.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($BLOCK) $NAME(const Args a) {
  typedef long long Offset;  // element offset into a tensor's storage
  constexpr int kRowThreads = $ROW_THREADS;
  constexpr int kRowsPerBlock = $BLOCK / kRowThreads;
  constexpr int kRowsPerWarp = kRowThreads <= 32 ? 32 / kRowThreads : 1;
  const long long rows = a.rows;
  constexpr int extent = $EXTENT;  // fixed per kernel: loops and bounds checks fold away
  const int lane = threadIdx.x % kRowThreads;
  const int warp_rows = kRowThreads <= 32 ? (int)(threadIdx.x / 32) * kRowsPerWarp : 0;
  const int row_in_warp = kRowThreads <= 32 ? (int)(threadIdx.x % 32) / kRowThreads : 0;
$SHARED
$UNIFORM_LOADS
  for (long long first = (long long)blockIdx.x * kRowsPerBlock + warp_rows; first < rows;
       first += (long long)gridDim.x * kRowsPerBlock) {
    const long long row = first + row_in_warp;
    const bool active = row < rows;
    const long long safe_row = active ? row : 0;  // where an idle lane's per-row loads read
$ROW_BODY
  }
}
