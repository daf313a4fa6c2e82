// Skeleton of a sort of rows of at most a tile (a top-k keeping more than the top-k kernel
// selects; see codegen/top_k_kernel.h); codegen fills the $-names. A block takes a row at a time,
// sorts it in shared memory and writes the best k. Every compare is the total order of (key,
// position): stable, and the same bits on every run. Longer rows: radix_sort_skeleton.cuh.
#include "lz_device.cuh"
#include "lz_order.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($THREADS) $NAME(const Args a) {
  typedef $INDEX_TYPE Index;    // linear index into the iteration space
  typedef $OFFSET_TYPE Offset;  // element offset into a tensor's storage
  typedef $ACC Acc;
  constexpr int kThreads = $THREADS, kTile = $TILE;
  const Index rows = (Index)a.rows;
  const Index extent = (Index)a.extent;
  const Index k = (Index)a.k;
  __shared__ unsigned long long keys[kTile];
  __shared__ unsigned positions[kTile];
$UNIFORM_LOADS
  for (Index row = blockIdx.x; row < rows; row += gridDim.x) {
    const int count = (int)extent;
    for (int e = threadIdx.x; e < count; e += kThreads) {
      const Index r = e;
      const Index i = row * extent + r;
$ELEMENT
      keys[e] = $KEY;
      positions[e] = (unsigned)r;
    }
    lz_sort_candidates(keys, positions, count);
    for (int j = threadIdx.x; j < k; j += kThreads) {
      const Index o = row * k + j;
      Acc value;
      lz_from_order_key($FROM_KEY, value);
      const long long at = positions[j];
$STORES
    }
    __syncthreads();
  }
}
