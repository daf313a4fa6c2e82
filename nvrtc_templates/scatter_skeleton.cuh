// Skeleton of a scatter kernel (codegen/scatter_kernel.h); codegen fills the $-names. A thread
// takes output element i: the walk over its coordinates sets p, its coordinate along the axis, adds
// the others' offsets to x_at, index_at, order_at and src_at (x's along the axis too), and clears
// `in_index` where one lies past the index's size.
#include "lz_device.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($THREADS) $NAME(const Args a) {
  typedef $ACC Acc;
  const long long step = (long long)gridDim.x * $THREADS;
  for (long long i = (long long)blockIdx.x * $THREADS + threadIdx.x; i < a.n; i += step) {
    long long rest = i, p = 0;
    long long x_at = a.x_at, index_at = a.index_at, order_at = a.order_at, src_at = a.src_at;
    bool in_index = true;
$WALK
    auto sorted_index = [&](long long k) {
      return (long long)$INDEX_POINTER[index_at + k * a.index_along];
    };
    Acc acc = (Acc)($X);
    if (in_index && a.count > 0) {
      long long low = 0, high = a.count;
      while (low < high) {
        const long long mid = (low + high) / 2;
        if (sorted_index(mid) < p)
          low = mid + 1;
        else
          high = mid;
      }
      lz_check_sorted_index_ends(sorted_index, a.count, p, a.extent, a.faults, a.site);
      for (long long k = low; k < a.count && sorted_index(k) == p; ++k) {
        const long long from = $ORDER_POINTER[order_at + k * a.order_along];
        const Acc v = (Acc)($SRC);
        $FOLD;
      }
    }
    $OUT[i] = $STORE;
  }
}
