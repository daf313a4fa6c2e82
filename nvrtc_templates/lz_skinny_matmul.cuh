// Products of few rows (a decode step: x [M <= 16, K] times a weight [N, K] transposed) read the
// weight once and little else, so they are bound by memory, where a tiled library kernel reaches
// a fraction of copy bandwidth. Here a block computes 16 rows by kSkinnyColumns columns: each of
// its warps multiplies a slice of K on tensor cores (m16n8k16, f32 accumulators), rows past M
// reading zeros, and the warps' partial sums add up in shared memory in a fixed order, so a
// result has the same bits on every run. codegen/skinny_matmul.cpp writes the kernel around it
// and its epilogue.
#pragma once

#include "lz_device.cuh"

// On H100, [16, 4096] x [4096, 4096]^T took 17.0 us under Nsight Compute (cold L2) with 16 warps
// of 2 tiles, 4 chunks deep, the weight streamed past L1; 19.2 with 8 warps; 18.5 to 25 for
// other depths and widths; a plain read of the weight took 14.2.
constexpr int kSkinnyWarps = 16;  // a block's warps, each folding a slice of K
constexpr int kSkinnyTiles = 2;   // tiles of 8 columns each warp multiplies
constexpr int kSkinnyColumns = 8 * kSkinnyTiles;
constexpr int kSkinnyUnroll = 4;  // 32-wide chunks of K a lane loads before it multiplies
constexpr int kSkinnyThreads = 32 * kSkinnyWarps;
static_assert(16 * kSkinnyColumns <= kSkinnyThreads, "a result per thread at most");

// d += a * b for one 16x16 by 16x8 tile, bf16 or f16 inputs in pairs.
template <bool kBf16>
__device__ __forceinline__ void lz_mma_16816(float (&d)[4], unsigned a0, unsigned a1, unsigned a2,
                                             unsigned a3, unsigned b0, unsigned b1) {
  if constexpr (kBf16) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
}

// 8 elements of 16 bits, as the mma's operand registers take them in pairs.
struct __align__(16) lz_pairs4 {
  unsigned x, y, z, w;
};

// 8 elements at p (16-byte aligned), or zeros.
__device__ __forceinline__ lz_pairs4 lz_load_8_or_zero(const unsigned short* p, bool in) {
  return in ? *reinterpret_cast<const lz_pairs4*>(p) : lz_pairs4{0, 0, 0, 0};
}
// The same for data read once (the weight): past L1, which it would only crowd.
__device__ __forceinline__ lz_pairs4 lz_stream_8_or_zero(const unsigned short* p, bool in) {
  lz_pairs4 r{0, 0, 0, 0};
  if (in)
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
  return r;
}

// Sums x[row, :] * w[col, :] for this thread's result of the block's 16 x kSkinnyColumns tile:
// x holds `rows` (at most 16) rows of k elements, x_ld apart; w holds n rows of k, w_ld apart.
// k, x_ld, w_ld and both pointers' offsets are multiples of 8 elements (16-byte loads). Returns
// false for a thread whose result lies past the rows or columns; every thread must call it.
template <bool kBf16>
__device__ __forceinline__ bool lz_skinny_product(const unsigned short* x, long long x_ld,
                                                  const unsigned short* w, long long w_ld,
                                                  int rows, long long n, long long k, float& sum,
                                                  int& row, long long& col) {
  __shared__ float partial[kSkinnyWarps][16 * kSkinnyColumns];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // A lane loads 8 consecutive elements of K: group picks its row of x and column of w, quad its
  // 8 elements of each 32-wide chunk. The mma's logical k order is a permutation of these, the
  // same for both operands, which leaves the sum unchanged.
  const int group = lane / 4, quad = lane % 4;
  const long long first_col = (long long)blockIdx.x * kSkinnyColumns;
  const long long chunks = (k + 31) / 32;
  const long long per_warp = (chunks + kSkinnyWarps - 1) / kSkinnyWarps;
  const long long first = warp * per_warp;
  const long long last = first + per_warp < chunks ? first + per_warp : chunks;
  const bool low_row = group < rows, high_row = group + 8 < rows;
  const unsigned short* x_low = x + (long long)group * x_ld + quad * 8;
  const unsigned short* x_high = x + (long long)(group + 8) * x_ld + quad * 8;
  const unsigned short* w_col[kSkinnyTiles];
  bool in_n[kSkinnyTiles];
#pragma unroll
  for (int t = 0; t < kSkinnyTiles; ++t) {
    const long long c = first_col + t * 8 + group;
    in_n[t] = c < n;
    w_col[t] = w + c * w_ld + quad * 8;
  }
  float acc[kSkinnyTiles][4] = {};
  for (long long chunk = first; chunk < last; chunk += kSkinnyUnroll) {
    lz_pairs4 xl[kSkinnyUnroll], xh[kSkinnyUnroll], wv[kSkinnyTiles][kSkinnyUnroll];
#pragma unroll
    for (int u = 0; u < kSkinnyUnroll; ++u) {
      const long long at = (chunk + u) * 32;
      const bool in_k = chunk + u < last && at + quad * 8 < k;
      xl[u] = lz_load_8_or_zero(x_low + at, in_k && low_row);
      xh[u] = lz_load_8_or_zero(x_high + at, in_k && high_row);
#pragma unroll
      for (int t = 0; t < kSkinnyTiles; ++t)
        wv[t][u] = lz_stream_8_or_zero(w_col[t] + at, in_k && in_n[t]);
    }
#pragma unroll
    for (int u = 0; u < kSkinnyUnroll; ++u) {
#pragma unroll
      for (int t = 0; t < kSkinnyTiles; ++t) {
        lz_mma_16816<kBf16>(acc[t], xl[u].x, xh[u].x, xl[u].y, xh[u].y, wv[t][u].x, wv[t][u].y);
        lz_mma_16816<kBf16>(acc[t], xl[u].z, xh[u].z, xl[u].w, xh[u].w, wv[t][u].z, wv[t][u].w);
      }
    }
  }
  // The accumulators' layout: [0], [1] are row `group`, columns 2 * quad and 2 * quad + 1 of the
  // tile; [2], [3] the same columns of row group + 8.
#pragma unroll
  for (int t = 0; t < kSkinnyTiles; ++t) {
    const int c = t * 8 + quad * 2;
    partial[warp][group * kSkinnyColumns + c] = acc[t][0];
    partial[warp][group * kSkinnyColumns + c + 1] = acc[t][1];
    partial[warp][(group + 8) * kSkinnyColumns + c] = acc[t][2];
    partial[warp][(group + 8) * kSkinnyColumns + c + 1] = acc[t][3];
  }
  __syncthreads();
  if (threadIdx.x >= 16 * kSkinnyColumns) return false;
  sum = 0.0f;
#pragma unroll
  for (int p = 0; p < kSkinnyWarps; ++p) sum += partial[p][threadIdx.x];
  row = threadIdx.x / kSkinnyColumns;
  col = first_col + threadIdx.x % kSkinnyColumns;
  return row < rows && col < n;
}
