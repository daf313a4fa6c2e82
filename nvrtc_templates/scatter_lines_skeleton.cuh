// Skeleton of a scatter kernel whose index runs are shared by the elements after the axis
// (codegen/scatter_kernel.h); codegen fills the $-names. A warp takes a line: the element of the
// axis and those before it (p and the offsets they give); it finds the run of the sorted index
// naming p together (lz_warp_lower_bound), then its lanes fold the run into the line's elements,
// reading each src row coalesced. Warps of a block take different lines, so one's search hides
// behind another's loads.
#include "lz_device.cuh"
#include "lz_order.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($THREADS) $NAME(const Args a) {
  typedef $ACC Acc;
  constexpr int kWarps = $THREADS / 32;
  const int lane = threadIdx.x % 32;
  const long long lines = a.n / a.inner, warps = (long long)gridDim.x * kWarps;
  for (long long line = (long long)blockIdx.x * kWarps + threadIdx.x / 32; line < lines;
       line += warps) {
    long long rest = line, p = 0;
    long long x_at = a.x_at, index_at = a.index_at, order_at = a.order_at, src_at = a.src_at;
    bool in_index = true;
$WALK
    auto sorted_index = [&](long long k) {
      return (long long)$INDEX_POINTER[index_at + k * a.index_along];
    };
    long long low = 0, high = 0;
    if (in_index && a.count > 0) {
      low = lz_warp_lower_bound(sorted_index, a.count, p, lane);
      high = lz_warp_lower_bound(sorted_index, a.count, p + 1, lane);
      if (lane == 0)
        lz_check_sorted_index_ends(sorted_index, a.count, p, a.extent, a.faults, a.site);
    }
    // kUnroll elements a lane, 32 apart: their loads are in flight together.
    constexpr int kUnroll = 4;
    for (long long first = lane; first < a.inner; first += 32 * kUnroll) {
      long long x_of[kUnroll], src_of[kUnroll];
      Acc sums[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        long long rest_e = first + 32 * u, x_e = x_at, src_e = src_at;
$INNER_WALK
        x_of[u] = x_e;
        src_of[u] = src_e;
        if (first + 32 * u < a.inner) sums[u] = (Acc)($X);
      }
      for (long long k = low; k < high; ++k) {
        const long long from = $ORDER_POINTER[order_at + k * a.order_along];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          if (first + 32 * u >= a.inner) continue;
          const long long src_e = src_of[u];
          const Acc v = (Acc)($SRC);
          Acc acc = sums[u];
          $FOLD;
          sums[u] = acc;
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (first + 32 * u >= a.inner) continue;
        const Acc acc = sums[u];
        $OUT[line * a.inner + first + 32 * u] = $STORE;
      }
    }
  }
}
