// Device helpers every generated kernel includes: dtype conversions (through PTX, so no CUDA
// header is needed at run time), NaN-propagating min/max, integer power, vector access and
// fast division for index arithmetic.
#pragma once

typedef unsigned short lz_f16;   // IEEE half, as bits
typedef unsigned short lz_bf16;  // bfloat16, as bits

__device__ __forceinline__ float lz_f16_to_f32(lz_f16 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ lz_f16 lz_f32_to_f16(float f) {
  lz_f16 h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ __forceinline__ float lz_bf16_to_f32(lz_bf16 b) {
  return __uint_as_float((unsigned int)b << 16);
}
__device__ __forceinline__ lz_bf16 lz_f32_to_bf16(float f) {
  lz_bf16 b;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));
  return b;
}
// Rounds to the precision of a narrower dtype and back (an explicit cast to f16 or bf16).
__device__ __forceinline__ float lz_round_f16(float f) { return lz_f16_to_f32(lz_f32_to_f16(f)); }
__device__ __forceinline__ float lz_round_bf16(float f) { return lz_bf16_to_f32(lz_f32_to_bf16(f)); }

// Float to integer: truncation toward zero, saturating, NaN to 0. cvt.rzi gives 0 for NaN into
// 32 bits but the most negative value into 64 bits (found by lazyfuse-fuzz), so i64 tests NaN.
__device__ __forceinline__ int lz_f32_to_i32(float f) {
  int i;
  asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(i) : "f"(f));
  return i;
}
__device__ __forceinline__ long long lz_f32_to_i64(float f) {
  long long i;
  asm("cvt.rzi.s64.f32 %0, %1;" : "=l"(i) : "f"(f));
  return f != f ? 0 : i;
}

// Rounding a double or an integer to f16 or bf16 through a rounded f32 could round twice (onto a
// tie of the narrow type). Rounding to f32 toward zero and making it odd when inexact keeps the
// sticky information: 24 bits are enough for one correct rounding to 11 or 8.
__device__ __forceinline__ float lz_f64_to_f32_odd(double d) {
  float f;
  asm("cvt.rz.f32.f64 %0, %1;" : "=f"(f) : "d"(d));
  if ((double)f != d && f == f) f = __int_as_float(__float_as_int(f) | 1);
  return f;
}
// An integer in bf16, as a float: through f32, as PyTorch converts (two roundings: 2^24 + 2^16 + 1
// is 2^24, not the nearer 2^24 + 2^17).
__device__ __forceinline__ float lz_int_to_bf16(long long x) { return lz_round_bf16((float)x); }

// NaN-propagating max and min: one instruction from sm_80 on.
__device__ __forceinline__ float lz_maximum(float a, float b) {
#if __CUDA_ARCH__ >= 800
  float out;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(out) : "f"(a), "f"(b));
  return out;
#else
  return (a != a || b != b) ? __int_as_float(0x7fc00000) : fmaxf(a, b);
#endif
}
__device__ __forceinline__ float lz_minimum(float a, float b) {
#if __CUDA_ARCH__ >= 800
  float out;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(out) : "f"(a), "f"(b));
  return out;
#else
  return (a != a || b != b) ? __int_as_float(0x7fc00000) : fminf(a, b);
#endif
}
// ptxas 13.0 on sm_90 folds a negation into an operand of its three-input integer max/min
// (VIMNMX3) and then loses it: max(max(a, -b), -c) reads b un-negated. The same order compared
// unsigned with the sign bit flipped keeps it from forming that instruction.
__device__ __forceinline__ int lz_maximum(int a, int b) {
  const unsigned flip = 0x80000000u, x = (unsigned)a ^ flip, y = (unsigned)b ^ flip;
  return (int)((x > y ? x : y) ^ flip);
}
__device__ __forceinline__ int lz_minimum(int a, int b) {
  const unsigned flip = 0x80000000u, x = (unsigned)a ^ flip, y = (unsigned)b ^ flip;
  return (int)((x < y ? x : y) ^ flip);
}
// Integer power by squaring, wrapping; a negative exponent gives the truncated reciprocal.
__device__ __forceinline__ long long lz_ipow(long long base, long long exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent & 1) ? -1 : 1;
    return 0;
  }
  unsigned long long result = 1, b = (unsigned long long)base;
  while (exponent > 0) {
    if (exponent & 1) result *= b;
    b *= b;
    exponent >>= 1;
  }
  return (long long)result;
}

// Wrapping integer arithmetic (signed overflow is undefined in C++; the hardware wraps).
__device__ __forceinline__ long long lz_wrap_add(long long a, long long b) {
  return (long long)((unsigned long long)a + (unsigned long long)b);
}
__device__ __forceinline__ long long lz_wrap_sub(long long a, long long b) {
  return (long long)((unsigned long long)a - (unsigned long long)b);
}
__device__ __forceinline__ long long lz_wrap_mul(long long a, long long b) {
  return (long long)((unsigned long long)a * (unsigned long long)b);
}

// N elements of T loaded or stored as one access of N * sizeof(T) bytes (16-byte pieces when
// larger), aligned to its size so that a narrower vector is not read as a misaligned wider one.
template <int N, class T>
struct __align__(N * sizeof(T) < 16 ? N * sizeof(T) : 16) lz_vec {
  T v[N];
};
template <int N, class T>
__device__ __forceinline__ lz_vec<N, T> lz_load_vec(const T* p) {
  return *reinterpret_cast<const lz_vec<N, T>*>(p);
}
template <int N, class T>
__device__ __forceinline__ void lz_store_vec(T* p, const lz_vec<N, T>& x) {
  *reinterpret_cast<lz_vec<N, T>*>(p) = x;
}

// A gather's index outside [0, bound): the first kernel thread to find one records where and
// what in host-mapped memory (runtime/index_faults.h: state, site, value); the next sync throws.
__device__ __noinline__ void lz_index_fault(unsigned int* faults, unsigned int site,
                                            long long value) {
  if (atomicCAS(faults, 0u, 1u) != 0u) return;
  *(volatile unsigned int*)(faults + 1) = site;
  *(volatile long long*)(faults + 2) = value;
  __threadfence_system();
  atomicExch(faults, 2u);
}

// A scatter's index sorted along the axis: a bad value sits at one of its ends. The thread writing
// position 0 reports a negative first value, the one writing the last position a last value past
// the axis; no other thread reads either end.
template <class SortedIndex>
__device__ __forceinline__ void lz_check_sorted_index_ends(SortedIndex sorted_index,
                                                           long long count, long long p,
                                                           long long extent, unsigned int* faults,
                                                           long long site) {
  if (p == 0 && sorted_index(0) < 0) lz_index_fault(faults, (unsigned int)site, sorted_index(0));
  if (p == extent - 1) {
    const long long last = sorted_index(count - 1);
    if (last >= extent) lz_index_fault(faults, (unsigned int)site, last);
  }
}
// The element `pick` positions along the gathered axis from `base`, or 0 for a bad pick.
template <class T>
__device__ __forceinline__ T lz_gather_element(const T* source, long long base, long long pick,
                                               long long stride, long long bound,
                                               unsigned int* faults, unsigned long long site) {
  if ((unsigned long long)pick < (unsigned long long)bound) return source[base + pick * stride];
  lz_index_fault(faults, (unsigned int)site, pick);
  return T(0);
}

// `N` consecutive elements from there, the pick checked once: zeros for a bad pick.
template <int N, class T>
__device__ __forceinline__ lz_vec<N, T> lz_gather_vec(const T* source, long long base,
                                                      long long pick, long long stride,
                                                      long long bound, unsigned int* faults,
                                                      unsigned long long site) {
  if ((unsigned long long)pick < (unsigned long long)bound)
    return lz_load_vec<N>(source + base + pick * stride);
  lz_index_fault(faults, (unsigned int)site, pick);
  lz_vec<N, T> zeros;
  for (int e = 0; e < N; ++e) zeros.v[e] = T(0);
  return zeros;
}

// n / d and n % d for 32-bit indices with a divisor fixed at launch: the host precomputes
// magic and shift (Granlund-Montgomery), the device does a multiply-high and a shift.
// magic_shift packs the magic number in its low 32 bits and the shift in its high 32 bits.
__device__ __forceinline__ unsigned int lz_fast_div(unsigned int n, unsigned long long magic_shift) {
  unsigned int magic = (unsigned int)magic_shift;
  unsigned int shift = (unsigned int)(magic_shift >> 32);
  return (__umulhi(n, magic) + n) >> shift;
}

// The element a pointwise group visited at position v starts at, when dim `outer` is visited
// just outside the innermost dim, after the `middle` dims between them (codegen/visit_order.h).
__device__ __forceinline__ unsigned int lz_reuse_order(unsigned int v, unsigned long long inner,
                                                       unsigned long long inner_div,
                                                       unsigned long long outer,
                                                       unsigned long long outer_div,
                                                       unsigned long long middle,
                                                       unsigned long long middle_div) {
  const unsigned int rows = lz_fast_div(v, inner_div);
  const unsigned int l = v - rows * (unsigned int)inner;
  const unsigned int runs = lz_fast_div(rows, outer_div);
  const unsigned int o = rows - runs * (unsigned int)outer;
  const unsigned int a = lz_fast_div(runs, middle_div);
  const unsigned int m = runs - a * (unsigned int)middle;
  return ((a * (unsigned int)outer + o) * (unsigned int)middle + m) * (unsigned int)inner + l;
}

#include "philox.cuh"

// The device function of each op (one per row of the op table).
#include "lz_pointwise.cuh"

// Folding one value (or another thread's partial result) into a reduction's accumulator. `at` is
// the position of the element an arg-reduction holds (-1: none yet); the others ignore it.
#define LZ_FOLD(name, type, body)                                                         \
  __device__ __forceinline__ void name(type& acc, long long& at, type x, long long i) { \
    (void)at;                                                                             \
    (void)i;                                                                              \
    body;                                                                                 \
  }
LZ_FOLD(lz_fold_sum, float, acc = acc + x)
LZ_FOLD(lz_fold_sum, long long, acc = lz_wrap_add(acc, x))
LZ_FOLD(lz_fold_prod, float, acc = acc * x)
LZ_FOLD(lz_fold_prod, long long, acc = lz_wrap_mul(acc, x))
LZ_FOLD(lz_fold_max, float, acc = lz_maximum(acc, x))
LZ_FOLD(lz_fold_max, long long, acc = x > acc ? x : acc)
LZ_FOLD(lz_fold_max, int, acc = lz_maximum(acc, x))
LZ_FOLD(lz_fold_min, float, acc = lz_minimum(acc, x))
LZ_FOLD(lz_fold_min, long long, acc = x < acc ? x : acc)
LZ_FOLD(lz_fold_min, int, acc = lz_minimum(acc, x))
LZ_FOLD(lz_fold_any, int, acc = acc | x)
LZ_FOLD(lz_fold_all, int, acc = acc & x)
// The order an arg-reduction or running extreme compares in: an int's in lz_maximum's flipped
// unsigned form, since ptxas 13.0 made VIMNMX3 of argmax's signed compares too and lost a negation
// folded into it (argmax of -fmod(...) beside the fmod's output: seed 17662 program 50).
__device__ __forceinline__ unsigned lz_fold_key(int x) { return (unsigned)x ^ 0x80000000u; }
__device__ __forceinline__ long long lz_fold_key(long long x) { return x; }
__device__ __forceinline__ float lz_fold_key(float x) { return x; }
// NaN beats numbers (the first NaN wins), then the larger (smaller) value, then the earlier one.
#define LZ_FOLD_ARG(name, type, beats)                                                      \
  __device__ __forceinline__ void name(type& acc, long long& at, type x, long long i) {   \
    if (i < 0) return;                                                                      \
    const bool acc_nan = acc != acc, x_nan = x != x;                                        \
    const bool better =                                                                     \
        at < 0 || (acc_nan ? (x_nan && i < at)                                              \
                           : (x_nan || (lz_fold_key(x) beats lz_fold_key(acc)) ||           \
                              (x == acc && i < at)));                                       \
    if (better) {                                                                           \
      acc = x;                                                                              \
      at = i;                                                                               \
    }                                                                                       \
  }
LZ_FOLD_ARG(lz_fold_argmax, float, >)
LZ_FOLD_ARG(lz_fold_argmax, long long, >)
LZ_FOLD_ARG(lz_fold_argmax, int, >)
LZ_FOLD_ARG(lz_fold_argmin, float, <)
LZ_FOLD_ARG(lz_fold_argmin, long long, <)
LZ_FOLD_ARG(lz_fold_argmin, int, <)

// A running extreme (cummax, cummin): the first NaN sticks, else x replaces acc when it is at least
// as large (small), so equal values give the later position. i < 0 marks no element.
#define LZ_SCAN_PICK(name, type, replaces)                                \
  __device__ __forceinline__ void name(type& acc, long long& at, type x, long long i) { \
    if (i < 0) return;                                                    \
    const bool acc_nan = acc != acc, x_nan = x != x;                      \
    if (at < 0 || (!acc_nan && (x_nan || lz_fold_key(x) replaces lz_fold_key(acc)))) { \
      acc = x;                                                            \
      at = i;                                                             \
    }                                                                     \
  }
LZ_SCAN_PICK(lz_scan_max, float, >=)
LZ_SCAN_PICK(lz_scan_max, long long, >=)
LZ_SCAN_PICK(lz_scan_max, int, >=)
LZ_SCAN_PICK(lz_scan_min, float, <=)
LZ_SCAN_PICK(lz_scan_min, long long, <=)
LZ_SCAN_PICK(lz_scan_min, int, <=)

// Where element k of a scan tile sits in shared memory: one word of padding per 32, so that a
// warp reading kItems consecutive elements per thread spreads over the banks.
__device__ __forceinline__ int lz_tile_slot(int k) {
  return k + k / 32;
}

// Scans one tile of a row in place. `values` holds the tile's elements (element k at
// lz_tile_slot(k)), the first at row position `tile`; each becomes the fold of the row up to it,
// and `positions` (unless null) its position. Each thread scans kItems consecutive elements,
// warps and then the block add the prefixes before them, and `carry` (the tiles before) comes
// first; it leaves holding the fold through this tile. Every thread of the block calls it, in
// the same order, so every thread ends with the same carry bits.
template <int kThreads, int kItems, class Acc, class Fold>
__device__ __forceinline__ void lz_scan_tile(Acc* values, long long* positions, Acc* warp_values,
                                             long long* warp_positions, Acc& carry,
                                             long long& carry_at, long long tile,
                                             long long extent, Acc identity, Fold fold) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  Acc v[kItems];
  long long at[kItems];
#pragma unroll
  for (int e = 0; e < kItems; ++e) {
    const int k = threadIdx.x * kItems + e;
    const bool inside = tile + k < extent;
    v[e] = inside ? values[lz_tile_slot(k)] : identity;
    at[e] = inside ? tile + k : -1;
  }
#pragma unroll
  for (int e = 1; e < kItems; ++e) {
    Acc acc = v[e - 1];
    long long p = at[e - 1];
    fold(acc, p, v[e], at[e]);
    v[e] = acc;
    at[e] = p;
  }
  Acc total = v[kItems - 1];
  long long total_at = at[kItems - 1];
#pragma unroll
  for (int o = 1; o < 32; o *= 2) {
    Acc up = __shfl_up_sync(0xffffffffu, total, o);
    long long up_at = __shfl_up_sync(0xffffffffu, total_at, o);
    if (lane >= o) {
      fold(up, up_at, total, total_at);
      total = up;
      total_at = up_at;
    }
  }
  Acc before = __shfl_up_sync(0xffffffffu, total, 1);
  long long before_at = __shfl_up_sync(0xffffffffu, total_at, 1);
  if (lane == 31) {
    warp_values[warp] = total;
    warp_positions[warp] = total_at;
  }
  __syncthreads();
  Acc prefix = carry;
  long long prefix_at = carry_at;
  for (int w = 0; w < warp; ++w) fold(prefix, prefix_at, warp_values[w], warp_positions[w]);
  if (lane > 0) fold(prefix, prefix_at, before, before_at);
  for (int w = 0; w < kThreads / 32; ++w) fold(carry, carry_at, warp_values[w], warp_positions[w]);
#pragma unroll
  for (int e = 0; e < kItems; ++e) {
    Acc acc = prefix;
    long long p = prefix_at;
    fold(acc, p, v[e], at[e]);
    const int slot = lz_tile_slot(threadIdx.x * kItems + e);
    values[slot] = acc;
    if (positions) positions[slot] = p;
  }
}
