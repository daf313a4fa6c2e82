// Products of few rows (a decode step: x [M <= 16, K] times a weight [N, K] transposed) read the
// weight once and little else, so they are bound by memory, where a tiled library kernel reaches
// a fraction of copy bandwidth. Here a block computes 16 rows by kSkinnyColumns columns: each of
// its warps multiplies every kSkinnyWarps-th span of K on tensor cores (m16n8k16, f32
// accumulators), rows past M reading zeros, and the warps' partial sums add up in shared memory in
// a fixed order, so a result has the same bits on every run. codegen/skinny_matmul.cpp writes the kernel around it
// and its epilogue.
#pragma once

#include "lz_device.cuh"

// Reading the weight as mma fragments directly (a warp load touching 64 bytes of 8 rows) ran at
// the speed of that access pattern alone: 17.0 us for [16, 4096] x [4096, 4096]^T on H100 with
// L2 clean, where whole 512-byte row pieces took 15.0. So each warp loads rows coalesced, 128
// bytes of a row per 8 lanes, and passes them to the mma through its own shared-memory stage.
constexpr int kSkinnyWarps = 16;  // a block's warps, taking turns along K a span each
constexpr int kSkinnyTiles = 2;   // tiles of 8 columns a block multiplies
constexpr int kSkinnyColumns = 8 * kSkinnyTiles;
constexpr int kSkinnyThreads = 32 * kSkinnyWarps;
constexpr int kSkinnySpan = 64;  // elements of K a warp stages per pass: 2 chunks of 32
// A staged row's bytes apart: 64 past the span's 128, so the 8 lanes of a 16-byte fragment read
// (rows g and g + 1) fall in different banks.
constexpr int kSkinnyPitch = 2 * kSkinnySpan + 64;
constexpr int kSkinnyRowsPerLoad = 32 / (2 * kSkinnySpan / 16);  // 4 rows of 8 lanes
constexpr int kSkinnyLoads = kSkinnyColumns / kSkinnyRowsPerLoad;
constexpr int kSkinnyStage = kSkinnyColumns * kSkinnyPitch;
static_assert(16 * kSkinnyColumns <= kSkinnyThreads, "a result per thread at most");
static_assert(16 * kSkinnyColumns * 4 <= kSkinnyStage, "the partial sums fit a warp's stage");
static_assert(kSkinnyWarps * kSkinnyStage <= 48 * 1024, "static shared memory");

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
// k, x_ld, w_ld and both pointers' offsets are multiples of 8 elements (16-byte loads). Offsets
// along K are Offset: int where k leaves room for a span past it (fewer registers than 64-bit
// ones, which spill at the 64-register cap), else long long. Returns false for a thread whose
// result lies past the rows or columns; every thread must call it.
template <bool kBf16, class Offset>
__device__ __forceinline__ bool lz_skinny_product(const unsigned short* x, long long x_ld,
                                                  const unsigned short* w, long long w_ld, int rows,
                                                  long long n, long long k, float& sum, int& row,
                                                  long long& col) {
  __shared__ __align__(16) unsigned char stages[kSkinnyWarps][kSkinnyStage];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // In the mma, group picks a lane's row of x and column of w, quad its 8 elements of each
  // 32-wide chunk of K. The mma's logical k order is a permutation of these, the same for both
  // operands, which leaves the sum unchanged.
  const int group = lane / 4, quad = lane % 4;
  const long long first_col = (long long)blockIdx.x * kSkinnyColumns;
  // The warps take turns along K a span each, so a block's pass reads 2 KiB of each of its rows
  // at once: 15.4 us against 15.8 with a slice of K a warp ([16, 4096] x [4096, 4096]^T, H200).
  const Offset k_first = warp * kSkinnySpan, k_last = (Offset)k;
  constexpr Offset kStride = kSkinnyWarps * kSkinnySpan;
  const bool low_row = group < rows, high_row = group + 8 < rows;
  const unsigned short* x_low = x + (long long)group * x_ld + quad * 8;
  const unsigned short* x_high = x + (long long)(group + 8) * x_ld + quad * 8;
  // A coalesced load: lane / 8 picks the row among kSkinnyRowsPerLoad, lane % 8 its 16 bytes.
  const int load_row = lane / 8, load_at = (lane % 8) * 8;
  unsigned char* stage = stages[warp];
  lz_pairs4 staged[kSkinnyLoads];
  auto load = [&](Offset span) {
    const bool in_k = span + load_at < k_last;
#pragma unroll
    for (int i = 0; i < kSkinnyLoads; ++i) {
      const long long c = first_col + i * kSkinnyRowsPerLoad + load_row;
      staged[i] = lz_stream_8_or_zero(w + c * w_ld + span + load_at, in_k && c < n);
    }
  };
  float acc[kSkinnyTiles][4] = {};
  if (k_first < k_last) load(k_first);
  for (Offset span = k_first; span < k_last; span += kStride) {
#pragma unroll
    for (int i = 0; i < kSkinnyLoads; ++i)
      *reinterpret_cast<lz_pairs4*>(stage + (i * kSkinnyRowsPerLoad + load_row) * kSkinnyPitch +
                                    (lane % 8) * 16) = staged[i];
    __syncwarp();
    // The next span's loads fly while this one multiplies.
    if (span + kStride < k_last) load(span + kStride);
#pragma unroll
    for (int c = 0; c < kSkinnySpan / 32; ++c) {
      const Offset at = span + c * 32;
      const bool in_k = at + quad * 8 < k_last;
      const lz_pairs4 xl = lz_load_8_or_zero(x_low + at, in_k && low_row);
      const lz_pairs4 xh = lz_load_8_or_zero(x_high + at, in_k && high_row);
#pragma unroll
      for (int t = 0; t < kSkinnyTiles; ++t) {
        const lz_pairs4 wv = *reinterpret_cast<const lz_pairs4*>(
            stage + (t * 8 + group) * kSkinnyPitch + c * 64 + quad * 16);
        lz_mma_16816<kBf16>(acc[t], xl.x, xh.x, xl.y, xh.y, wv.x, wv.y);
        lz_mma_16816<kBf16>(acc[t], xl.z, xh.z, xl.w, xh.w, wv.z, wv.w);
      }
    }
    __syncwarp();
  }
  // The accumulators' layout: [0], [1] are row `group`, columns 2 * quad and 2 * quad + 1 of the
  // tile; [2], [3] the same columns of row group + 8. The warp's stage is free now.
  float* partial = reinterpret_cast<float*>(stage);
#pragma unroll
  for (int t = 0; t < kSkinnyTiles; ++t) {
    const int c = t * 8 + quad * 2;
    partial[group * kSkinnyColumns + c] = acc[t][0];
    partial[group * kSkinnyColumns + c + 1] = acc[t][1];
    partial[(group + 8) * kSkinnyColumns + c] = acc[t][2];
    partial[(group + 8) * kSkinnyColumns + c + 1] = acc[t][3];
  }
  __syncthreads();
  if (threadIdx.x >= 16 * kSkinnyColumns) return false;
  sum = 0.0f;
#pragma unroll
  for (int p = 0; p < kSkinnyWarps; ++p)
    sum += reinterpret_cast<const float*>(stages[p])[threadIdx.x];
  row = threadIdx.x / kSkinnyColumns;
  col = first_col + threadIdx.x % kSkinnyColumns;
  return row < rows && col < n;
}
