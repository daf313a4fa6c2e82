// Skeleton of a reduction kernel; codegen fills the $-names. The iteration space is the reduced
// expression with the folded axes last, so result `row` folds elements row * extent + r. One
// block per result: its threads fold strided elements, then warps and the block combine.
#include "lz_device.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($THREADS) $NAME(const Args a) {
  typedef $INDEX_TYPE Index;    // linear index into the iteration space
  typedef $OFFSET_TYPE Offset;  // element offset into a tensor's storage
  const Index rows = (Index)a.rows;
  const Index extent = (Index)a.extent;
  __shared__ $ACC partial[$THREADS / 32];
  __shared__ long long partial_at[$THREADS / 32];
$UNIFORM_LOADS
  for (Index row = blockIdx.x; row < rows; row += gridDim.x) {
    $ACC acc = $INIT;
    long long at = -1;
    for (Index r = threadIdx.x; r < extent; r += blockDim.x) {
      const Index i = row * extent + r;
$ELEMENT
      $FOLD(acc, at, $VALUE, (long long)r);
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      const $ACC other = __shfl_down_sync(0xffffffffu, acc, offset);
      const long long other_at = __shfl_down_sync(0xffffffffu, at, offset);
      $FOLD(acc, at, other, other_at);
    }
    if ((threadIdx.x & 31) == 0) {
      partial[threadIdx.x / 32] = acc;
      partial_at[threadIdx.x / 32] = at;
    }
    __syncthreads();
    if (threadIdx.x < 32) {
      const bool has = threadIdx.x < blockDim.x / 32;
      acc = has ? partial[threadIdx.x] : $INIT;
      at = has ? partial_at[threadIdx.x] : -1;
      for (int offset = 16; offset > 0; offset /= 2) {
        const $ACC other = __shfl_down_sync(0xffffffffu, acc, offset);
        const long long other_at = __shfl_down_sync(0xffffffffu, at, offset);
        $FOLD(acc, at, other, other_at);
      }
      if (threadIdx.x == 0) a.out0[row] = $STORE;
    }
    __syncthreads();
  }
}
