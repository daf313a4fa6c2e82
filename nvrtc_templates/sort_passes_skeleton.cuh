// Skeleton of a sort kernel for few long rows (codegen/top_k_kernel.h); codegen fills the
// $-names. It runs as a launch per phase, a block per tile of every row in each: launch 0 sorts
// each tile of kTile elements in shared memory into the first run buffer; launch p merges runs of
// kTile << (p - 1) pairwise, a block per output tile (lz_merge_tile), into the other buffer, and
// the last writes the best k. The buffers hold every row, so the rows' whole width of work spreads
// over the GPU at every phase. Stable and deterministic, as sort_skeleton.cuh.
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
  // The two run buffers over every row: keys, then positions.
  const long long elements = (long long)rows * extent;
  unsigned long long* run_keys[2] = {a.scratch, a.scratch + elements};
  unsigned* run_positions[2] = {(unsigned*)(a.scratch + 2 * elements),
                                (unsigned*)(a.scratch + 2 * elements) + elements};
  int passes = 0;
  for (Index width = kTile; width < extent; width *= 2) ++passes;
  const Index tiles = (extent + kTile - 1) / kTile;
  const int pass = (int)a.phase - 1;  // -1: sort the tiles
$UNIFORM_LOADS
  for (Index job = blockIdx.x; job < rows * tiles; job += gridDim.x) {
    const Index row = job / tiles, tile = (job - row * tiles) * kTile;
    const long long row_at = (long long)row * extent;
    if (pass < 0) {
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
        run_keys[0][row_at + tile + j] = keys[j];
        run_positions[0][row_at + tile + j] = positions[j];
      }
      __syncthreads();
      continue;
    }
    const bool last = pass == passes - 1;
    const Index width = (Index)kTile << pass;
    const Index start = tile / (2 * width) * (2 * width);  // the pair this output tile is of
    const Index a_count = extent - start < width ? extent - start : width;
    const Index b_start = start + a_count;
    const Index b_count = extent - b_start < width ? extent - b_start : width;
    const Index merged = a_count + b_count;
    const Index wanted = last && k < merged ? k : merged;  // the last pass: the best k
    const Index out = tile - start;
    if (out >= wanted) continue;
    const Index out_end = wanted - out < kTile ? wanted : out + kTile;
    const unsigned long long* in_keys = run_keys[pass % 2] + row_at;
    const unsigned* in_positions = run_positions[pass % 2] + row_at;
    lz_merge_tile<kThreads, kItems>(in_keys + start, in_positions + start, a_count,
                                    in_keys + b_start, in_positions + b_start, b_count, out, out_end,
                                    keys, positions, split_at);
    const int held = (int)(out_end - out);
    for (int j = threadIdx.x; j < held; j += kThreads) {
      if (last) {
        const Index o = row * k + out + j;
        Acc value;
        lz_from_order_key($FROM_KEY, value);
        const long long at = positions[j];
$STORES
      } else {
        run_keys[1 - pass % 2][row_at + start + out + j] = keys[j];
        run_positions[1 - pass % 2][row_at + start + out + j] = positions[j];
      }
    }
    __syncthreads();
  }
}
