// Skeleton of a row kernel (reductions over trailing axes with the pointwise work around them);
// codegen fills the $-names. Each row is folded by row_threads threads: a block, or a warp or a
// slice of one when rows are short (a warp then holds several rows, which advance together so that every
// lane takes part in each shuffle; `active` is false for a row past the end).
#include "lz_device.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($BLOCK) $NAME(const Args a) {
  typedef long long Offset;  // element offset into a tensor's storage
$SIZES
  const int rows_per_warp = row_threads <= 32 ? 32 / row_threads : 1;
  const long long rows = a.rows;
  const int lane = threadIdx.x % row_threads;
  const int warp_rows = row_threads <= 32 ? (int)(threadIdx.x / 32) * rows_per_warp : 0;
  const int row_in_warp = row_threads <= 32 ? (int)(threadIdx.x % 32) / row_threads : 0;
$SHARED
$UNIFORM_LOADS
  for (long long first = (long long)blockIdx.x * rows_per_block + warp_rows; first < rows;
       first += (long long)gridDim.x * rows_per_block) {
    const long long row = first + row_in_warp;
    const bool active = row < rows;
    const long long safe_row = active ? row : 0;  // where an idle lane's per-row loads read
$ROW_BODY
  }
}
