// Skeleton of a scan kernel; codegen fills the $-names. Blocks take rows of the iteration space,
// whose last axis they scan in tiles of kThreads x kItems elements: threads compute a tile's
// elements striped (coalesced reads) into shared memory, scan it there (lz_scan_tile), and store
// it striped (coalesced writes). A carry joins the tiles of a row.
#include "lz_device.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($THREADS) $NAME(const Args a) {
  typedef $INDEX_TYPE Index;    // linear index into the iteration space
  typedef $OFFSET_TYPE Offset;  // element offset into a tensor's storage
  typedef $ACC Acc;
  constexpr int kThreads = $THREADS, kItems = $ITEMS, kTile = kThreads * kItems;
  const Index rows = (Index)a.rows;
  const Index extent = (Index)a.extent;
  __shared__ Acc tile_values[kTile + kTile / 32];
  __shared__ long long tile_positions[$POSITIONS_SIZE];
  __shared__ Acc warp_values[kThreads / 32];
  __shared__ long long warp_positions[kThreads / 32];
  const auto fold = [](Acc& acc, long long& at, Acc x, long long i) { $FOLD(acc, at, x, i); };
$UNIFORM_LOADS
  for (Index row = blockIdx.x; row < rows; row += gridDim.x) {
    Acc carry = $INIT;
    long long carry_at = -1;
    for (Index tile = 0; tile < extent; tile += kTile) {
      // Slots past the row's end read its last element (lz_scan_tile leaves them out): with no
      // branch between them, the loads all start before the first comes back.
#pragma unroll
      for (int e = 0; e < kItems; ++e) {
        const int k = e * kThreads + threadIdx.x;
        const Index r = min(tile + (Index)k, extent - 1);
        const Index i = row * extent + r;
$ELEMENT
        tile_values[lz_tile_slot(k)] = $VALUE;
      }
      __syncthreads();
      lz_scan_tile<kThreads, kItems>(tile_values, $POSITIONS, warp_values, warp_positions, carry,
                                     carry_at, (long long)tile, (long long)extent, (Acc)$INIT,
                                     fold);
      __syncthreads();
#pragma unroll
      for (int e = 0; e < kItems; ++e) {
        const int k = e * kThreads + threadIdx.x;
        const Index r = tile + (Index)k;
        if (r >= extent) continue;
        const Index i = row * extent + r;
        const Acc acc = tile_values[lz_tile_slot(k)];
        const long long at = $AT;
$STORES
      }
      __syncthreads();
    }
  }
}
