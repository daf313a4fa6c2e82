// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011), the
// generator cuRAND and PyTorch use. Plain C++ that compiles both in the library (the reference
// evaluator) and in generated kernels, so both backends draw the very same numbers.
#pragma once

#ifdef __CUDACC_RTC__
#define LZ_HOST_DEVICE __host__ __device__ __forceinline__
typedef unsigned int lz_u32;
typedef unsigned long long lz_u64;
#else
#include <cstdint>
#define LZ_HOST_DEVICE inline
typedef std::uint32_t lz_u32;
typedef std::uint64_t lz_u64;
#endif

struct lz_philox_out {
  lz_u32 v[4];
};

LZ_HOST_DEVICE lz_philox_out lz_philox4x32_10(lz_u32 c0, lz_u32 c1, lz_u32 c2, lz_u32 c3,
                                              lz_u32 k0, lz_u32 k1) {
  const lz_u32 kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  const lz_u32 kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    lz_u64 p0 = (lz_u64)kMul0 * c0;
    lz_u64 p1 = (lz_u64)kMul1 * c2;
    lz_u32 hi0 = (lz_u32)(p0 >> 32), lo0 = (lz_u32)p0;
    lz_u32 hi1 = (lz_u32)(p1 >> 32), lo1 = (lz_u32)p1;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  lz_philox_out out = {{c0, c1, c2, c3}};
  return out;
}

// The 32-bit word element `index` of a stream draws from: one Philox block serves 4 elements.
LZ_HOST_DEVICE lz_u32 lz_philox_word(lz_u64 seed, lz_u64 index) {
  lz_u64 block = index >> 2;
  lz_philox_out r = lz_philox4x32_10((lz_u32)block, (lz_u32)(block >> 32), 0u, 0u, (lz_u32)seed,
                                     (lz_u32)(seed >> 32));
  return r.v[index & 3];
}

// Uniform [0, 1) with `bits` random bits (24 for f32, 11 for f16, 8 for bf16): every value is
// exact in the target dtype, so rounding can never produce 1.
LZ_HOST_DEVICE float lz_uniform_from_word(lz_u32 word, int bits) {
  return (float)(word >> (32 - bits)) * (1.0f / (float)(1u << bits));
}

// Box-Muller needs two uniforms per pair of normals: element 2k and 2k+1 share block k's first
// two words (as radius and angle), and take the cosine and sine branch respectively.
struct lz_normal_inputs {
  float radius_uniform;  // in (0, 1]: log is finite
  float angle_uniform;   // in [0, 1)
  int use_sine;
};

LZ_HOST_DEVICE lz_normal_inputs lz_normal_uniforms(lz_u64 seed, lz_u64 index) {
  lz_u64 pair = index >> 1;
  lz_philox_out r = lz_philox4x32_10((lz_u32)pair, (lz_u32)(pair >> 32), 1u, 0u, (lz_u32)seed,
                                     (lz_u32)(seed >> 32));
  lz_normal_inputs in;
  in.radius_uniform = (float)((r.v[0] >> 8) + 1u) * (1.0f / 16777216.0f);
  in.angle_uniform = (float)(r.v[1] >> 8) * (1.0f / 16777216.0f);
  in.use_sine = (int)(index & 1);
  return in;
}
