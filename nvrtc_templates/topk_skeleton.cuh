// Skeleton of a top-k kernel; codegen fills the $-names. Blocks take rows of the iteration space
// and read each row once, in chunks of kThreads x kItems elements (striped: coalesced reads).
// An element is a candidate when it ranks before the current threshold; candidates collect in
// shared memory, and when another chunk might not fit, they are sorted and cut to the best k,
// whose last becomes the threshold. Few elements pass once it is high, so the row streams past at
// memory speed. At the end the candidates are sorted and the best k written, best first.
#include "lz_device.cuh"
#include "lz_order.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($THREADS) $NAME(const Args a) {
  typedef $INDEX_TYPE Index;    // linear index into the iteration space
  typedef $OFFSET_TYPE Offset;  // element offset into a tensor's storage
  typedef $ACC Acc;
  constexpr int kThreads = $THREADS, kItems = 4, kChunk = kThreads * kItems;
  constexpr int kCapacity = 2 * kChunk;  // holds k <= kChunk kept and one chunk more
  const Index rows = (Index)a.rows;
  const Index extent = (Index)a.extent;
  const int k = (int)a.k;
  __shared__ unsigned long long keys[kCapacity];
  __shared__ unsigned positions[kCapacity];
  __shared__ int count;
$UNIFORM_LOADS
  for (Index row = blockIdx.x; row < rows; row += gridDim.x) {
    if (threadIdx.x == 0) count = 0;
    bool has_threshold = false;
    unsigned long long threshold = 0;
    unsigned threshold_at = 0;
    __syncthreads();
    for (Index chunk = 0; chunk < extent; chunk += kChunk) {
      // The chunk's keys first, slots past the row's end reading its last element: with no
      // branch between them, the loads all start before the first comes back.
      unsigned long long chunk_keys[kItems];
#pragma unroll
      for (int e = 0; e < kItems; ++e) {
        const Index r = min(chunk + (Index)(e * kThreads + threadIdx.x), extent - 1);
        const Index i = row * extent + r;
$ELEMENT
        chunk_keys[e] = $KEY;
      }
#pragma unroll
      for (int e = 0; e < kItems; ++e) {
        const Index r = chunk + (Index)(e * kThreads + threadIdx.x);
        if (r >= extent) continue;
        const unsigned long long key = chunk_keys[e];
        if (!has_threshold || lz_ranks_before(key, (unsigned)r, threshold, threshold_at)) {
          const int slot = atomicAdd(&count, 1);
          keys[slot] = key;
          positions[slot] = (unsigned)r;
        }
      }
      __syncthreads();
      const int held = count;
      if (held > kCapacity - kChunk) {
        lz_sort_candidates(keys, positions, held);
        has_threshold = true;
        threshold = keys[k - 1];
        threshold_at = positions[k - 1];
        __syncthreads();
        if (threadIdx.x == 0) count = k;
      }
      __syncthreads();
    }
    const int held = count;
    lz_sort_candidates(keys, positions, held);
    for (int j = threadIdx.x; j < k; j += kThreads) {
      const Index o = row * (Index)k + (Index)j;
      Acc value;
      lz_from_order_key($FROM_KEY, value);
      const long long at = positions[j];
$STORES
    }
    __syncthreads();
  }
}
