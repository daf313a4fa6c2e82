// Skeleton of a scatter kernel whose index runs are shared by the elements after the axis
// (codegen/scatter_kernel.h); codegen fills the $-names. A block takes a line: the element of the
// axis and those before it (p and the offsets they give), where one thread finds the run of the
// sorted index naming p, and the block's threads fold it into the line's elements, reading each
// src row coalesced.
#include "lz_device.cuh"

struct Args {
$ARGS};

extern "C" __global__ void __launch_bounds__($THREADS) $NAME(const Args a) {
  typedef $ACC Acc;
  __shared__ long long run[2];
  const long long lines = a.n / a.inner;
  for (long long line = blockIdx.x; line < lines; line += gridDim.x) {
    long long rest = line, p = 0;
    long long x_at = a.x_at, index_at = a.index_at, order_at = a.order_at, src_at = a.src_at;
    bool in_index = true;
$WALK
    if (threadIdx.x == 0) {
      auto sorted_index = [&](long long k) {
        return (long long)$INDEX_POINTER[index_at + k * a.index_along];
      };
      long long low = 0, high = 0;
      if (in_index && a.count > 0) {
        high = a.count;
        while (low < high) {  // the first index >= p
          const long long mid = (low + high) / 2;
          if (sorted_index(mid) < p)
            low = mid + 1;
          else
            high = mid;
        }
        high = a.count;
        for (long long from = low; from < high;) {  // the first index > p
          const long long mid = (from + high) / 2;
          if (sorted_index(mid) <= p)
            from = mid + 1;
          else
            high = mid;
        }
        if (p == 0 && sorted_index(0) < 0)
          lz_index_fault(a.faults, (unsigned)a.site, sorted_index(0));
        const long long last = sorted_index(a.count - 1);
        if (p == a.extent - 1 && last >= a.extent) lz_index_fault(a.faults, (unsigned)a.site, last);
      }
      run[0] = low;
      run[1] = high;
    }
    __syncthreads();
    const long long low = run[0], high = run[1];
    for (long long e = threadIdx.x; e < a.inner; e += $THREADS) {
      long long rest_e = e, x_e = x_at, src_e = src_at;
$INNER_WALK
      Acc acc = (Acc)($X);
      for (long long k = low; k < high; ++k) {
        const long long from = $ORDER_POINTER[order_at + k * a.order_along];
        const Acc v = (Acc)($SRC);
        $FOLD;
      }
      $OUT[line * a.inner + e] = $STORE;
    }
    __syncthreads();
  }
}
