// Skeleton of a sort kernel (a top-k keeping more than the top-k kernel selects; see
// codegen/top_k_kernel.h); codegen fills the $-names. It runs as a launch per phase for each chunk
// of rows whose runs fit the scratch, a block per tile of every row of the chunk in each: phase 0
// sorts each tile of kTile elements in shared memory (rows of one tile: straight to the result),
// phase p merges runs of kTile << (p - 1) pairwise, a block per output tile (lz_merge_tile),
// between the two run buffers, and the last writes the best k. Every compare is the total order
// of (key, position): stable, and the same bits on every run.
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
  int passes = 0;
  for (Index width = kTile; width < extent; width *= 2) ++passes;
  const Index tiles = (extent + kTile - 1) / kTile;
  // The launch's chunk of rows and phase (0: sort the tiles).
  const Index first_row = (Index)(a.launch / (passes + 1)) * (Index)a.chunk_rows;
  const int phase = (int)(a.launch % (passes + 1));
  const Index chunk_rows = rows - first_row < (Index)a.chunk_rows ? rows - first_row : (Index)a.chunk_rows;
  // The two run buffers over the chunk's rows: keys, then positions.
  const long long elements = (long long)chunk_rows * extent;
  unsigned long long* run_keys[2] = {a.scratch, a.scratch + elements};
  unsigned* run_positions[2] = {(unsigned*)(a.scratch + 2 * elements),
                                (unsigned*)(a.scratch + 2 * elements) + elements};
$UNIFORM_LOADS
  for (Index job = blockIdx.x; job < chunk_rows * tiles; job += gridDim.x) {
    const Index chunk_row = job / tiles, tile = (job - chunk_row * tiles) * kTile;
    const Index row = first_row + chunk_row;
    const long long row_at = (long long)chunk_row * extent;
    if (phase == 0) {
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
          run_keys[0][row_at + tile + j] = keys[j];
          run_positions[0][row_at + tile + j] = positions[j];
        }
      }
      __syncthreads();
      continue;
    }
    const int pass = phase - 1;
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
