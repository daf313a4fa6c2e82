// Skeleton of a sort kernel (a top-k whose k is more than the top-k kernel keeps); codegen fills
// the $-names. Blocks take rows of the iteration space. A row is cut into tiles of kTile elements,
// each sorted in shared memory by a bitonic network; runs then merge pairwise through the block's
// two scratch buffers in global memory (a merge path: each output tile's split found by a warp's
// search, its inputs staged in shared memory, kItems merged per thread), and the last merge
// writes the best k. Every compare is the total order of (key, position): stable, and the same
// bits on every run.
#include "lz_device.cuh"
#include "lz_order.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($THREADS) $NAME(const Args a) {
  typedef $INDEX_TYPE Index;    // linear index into the iteration space
  typedef $OFFSET_TYPE Offset;  // element offset into a tensor's storage
  typedef $ACC Acc;
  constexpr int kThreads = $THREADS, kTile = 2048, kItems = kTile / kThreads;
  const Index rows = (Index)a.rows;
  const Index extent = (Index)a.extent;
  const Index k = (Index)a.k;
  __shared__ unsigned long long keys[kTile];
  __shared__ unsigned positions[kTile];
  __shared__ long long split_at[2];
  // This block's two run buffers: keys, then positions, after every block's keys.
  unsigned long long* run_keys[2];
  unsigned* run_positions[2];
  {
    const long long run_pair = 2 * (long long)extent;
    unsigned long long* block_keys = a.scratch + blockIdx.x * run_pair;
    unsigned* block_positions = (unsigned*)(a.scratch + gridDim.x * run_pair) + blockIdx.x * run_pair;
    run_keys[0] = block_keys;
    run_keys[1] = block_keys + extent;
    run_positions[0] = block_positions;
    run_positions[1] = block_positions + extent;
  }
  int passes = 0;
  for (Index width = kTile; width < extent; width *= 2) ++passes;
$UNIFORM_LOADS
  for (Index row = blockIdx.x; row < rows; row += gridDim.x) {
    for (Index tile = 0; tile < extent; tile += kTile) {
      const int count = (int)(extent - tile < kTile ? extent - tile : kTile);
      for (int e = threadIdx.x; e < count; e += kThreads) {
        const Index r = tile + e;
        const Index i = row * extent + r;
$ELEMENT
        keys[e] = $KEY;
        positions[e] = (unsigned)r;
      }
      lz_sort_candidates(keys, positions, count);
      for (int j = threadIdx.x; j < count; j += kThreads) {
        if (passes == 0) {
          if (j >= k) continue;
          const Index o = row * k + j;
          Acc value;
          lz_from_order_key($FROM_KEY, value);
          const long long at = positions[j];
$STORES
        } else {
          run_keys[0][tile + j] = keys[j];
          run_positions[0][tile + j] = positions[j];
        }
      }
      __syncthreads();
    }
    for (int pass = 0; pass < passes; ++pass) {
      const bool last = pass == passes - 1;
      const Index width = (Index)kTile << pass;
      const unsigned long long* in_keys = run_keys[pass % 2];
      const unsigned* in_positions = run_positions[pass % 2];
      for (Index start = 0; start < extent; start += 2 * width) {
        const Index a_count = extent - start < width ? extent - start : width;
        const Index b_start = start + a_count;
        const Index b_count = extent - b_start < width ? extent - b_start : width;
        const Index merged = a_count + b_count;
        // The last pass merges one pair, of which only the best k are wanted.
        const Index wanted = last && k < merged ? k : merged;
        for (Index out = 0; out < wanted; out += kTile) {
          const Index out_end = wanted - out < kTile ? wanted : out + kTile;
          lz_merge_tile<kThreads, kItems>(in_keys + start, in_positions + start, a_count,
                                          in_keys + b_start, in_positions + b_start, b_count, out,
                                          out_end, keys, positions, split_at);
          const int held = (int)(out_end - out);
          for (int j = threadIdx.x; j < held; j += kThreads) {
            if (last) {
              const Index o = row * k + out + j;
              Acc value;
              lz_from_order_key($FROM_KEY, value);
              const long long at = positions[j];
$STORES
            } else {
              run_keys[1 - pass % 2][start + out + j] = keys[j];
              run_positions[1 - pass % 2][start + out + j] = positions[j];
            }
          }
          __syncthreads();
        }
      }
    }
  }
}
