// Device helpers for ordering (top-k, sort, scatters): order keys, the bitonic sort of shared
// memory candidates, a radix sort's digits and ranks, and searches a whole warp makes together.
#pragma once

// Order keys: unsigned integers that compare as the values do, NaN above every number and -0 equal
// to 0, so a top-k keeps the larger key (of the value, or its complement for the smallest).
__device__ __forceinline__ unsigned long long lz_order_key(float v) {
  if (v != v) return 0xffffffffull;
  const unsigned bits = v == 0.0f ? 0u : __float_as_uint(v);
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}
__device__ __forceinline__ unsigned long long lz_order_key(int v) {
  return (unsigned)v ^ 0x80000000u;
}
__device__ __forceinline__ unsigned long long lz_order_key(long long v) {
  return (unsigned long long)v ^ 0x8000000000000000ull;
}
// The value an order key came from (canonical NaN, 0 for -0).
__device__ __forceinline__ void lz_from_order_key(unsigned long long key, float& v) {
  const unsigned bits = (unsigned)key;
  v = bits == 0xffffffffu ? __int_as_float(0x7fffffff)
                          : __uint_as_float((bits & 0x80000000u) ? (bits & 0x7fffffffu) : ~bits);
}
__device__ __forceinline__ void lz_from_order_key(unsigned long long key, int& v) {
  v = (int)((unsigned)key ^ 0x80000000u);
}
__device__ __forceinline__ void lz_from_order_key(unsigned long long key, long long& v) {
  v = (long long)(key ^ 0x8000000000000000ull);
}

// Whether candidate (key a, position pa) ranks before (b, pb): the larger key, then the earlier
// position.
__device__ __forceinline__ bool lz_ranks_before(unsigned long long a, unsigned pa,
                                                unsigned long long b, unsigned pb) {
  return a > b || (a == b && pa < pb);
}

// Sorts the first `count` candidates (keys, positions) in shared memory best first, by a bitonic
// network over the next power of two whose every compare puts the better one first: slots past
// `count` hold nothing and stay last, so they need no filling. Every thread of the block calls it.
__device__ __forceinline__ void lz_sort_candidates(unsigned long long* keys, unsigned* positions,
                                                   int count) {
  int n = 1;
  while (n < count) n *= 2;
  bool warp_local = false;  // the step before kept within its warps' slots
  for (int size = 2; size <= n; size *= 2) {
    for (int stride = size / 2; stride > 0; stride /= 2) {
      // With strides of at most 32, a thread's pairs lie in the 64 slots of its warp's 32 pairs,
      // the same in every such step: between two of them a warp barrier is enough.
      const bool local = stride <= 32;
      if (local && warp_local)
        __syncwarp();
      else
        __syncthreads();
      warp_local = local;
      for (int t = threadIdx.x; t < n / 2; t += blockDim.x) {
        // The pair's lower slot, and its partner: mirrored in the first step of each merge.
        const int low = (t / stride) * stride * 2 + t % stride;
        const int high =
            stride == size / 2 ? (low / size) * size + size - 1 - low % size : low + stride;
        if (high >= count) continue;
        if (lz_ranks_before(keys[high], positions[high], keys[low], positions[low])) {
          const unsigned long long k = keys[low];
          keys[low] = keys[high];
          keys[high] = k;
          const unsigned p = positions[low];
          positions[low] = positions[high];
          positions[high] = p;
        }
      }
    }
  }
  __syncthreads();
}

// The first k in [low, high) where `reached(k)` holds (high if none), `reached` false and then
// true along the span, found by the whole warp: each round its 32 lanes probe evenly spaced
// positions and keep the span between the last probe not reached and the first reached. Every
// lane of the warp calls it with the same arguments.
template <class Reached>
__device__ __forceinline__ long long lz_warp_partition_point(Reached reached, long long low,
                                                             long long high, int lane) {
  while (high - low > 32) {
    const long long step = (high - low + 31) / 32;
    const long long probe = low + lane * step;
    const int before = __popc(__ballot_sync(0xffffffffu, probe < high && !reached(probe)));
    const long long next_low = before == 0 ? low : low + (before - 1) * step + 1;
    high = min(high, low + before * step);
    low = next_low;
  }
  const long long probe = low + lane;
  return low + __popc(__ballot_sync(0xffffffffu, probe < high && !reached(probe)));
}

// The first k in [0, count) with get(k) >= value, get ascending, found by the whole warp.
template <class Get>
__device__ __forceinline__ long long lz_warp_lower_bound(Get get, long long count, long long value,
                                                         int lane) {
  return lz_warp_partition_point([&](long long k) { return get(k) >= value; }, 0, count, lane);
}

// A radix sort's digits: kDigitBits of an order key a pass, taken from the complemented key, so
// that ascending digits put the larger key first.
constexpr int kDigitBits = 8, kDigits = 1 << kDigitBits;
template <class Key>
__device__ __forceinline__ unsigned lz_radix_digit(Key key, int shift) {
  return (unsigned)((Key)~key >> shift) & (kDigits - 1);
}

// The passes a row makes, as a mask, when its keys differ in the bits `varying`: those whose
// digit differs between two of its keys, or the first alone, which writes out a row of equal keys.
template <class Key>
__device__ __forceinline__ unsigned lz_radix_passes_made(Key varying, int first_bit, int passes) {
  unsigned made = 0;
  for (int p = 0; p < passes; ++p)
    if ((varying >> (first_bit + p * kDigitBits)) & (kDigits - 1)) made |= 1u << p;
  return made ? made : 1u;
}

// The OR of `ors` and the AND of `ands` over the block's threads, left in each thread's. Every
// thread of the block calls it; `warp_bits` is [warps][2] keys of shared memory.
template <int kWarps, class Key>
__device__ __forceinline__ void lz_block_or_and(Key& ors, Key& ands, Key (*warp_bits)[2]) {
#pragma unroll
  for (int d = 16; d >= 1; d /= 2) {
    ors |= __shfl_xor_sync(0xffffffffu, ors, d);
    ands &= __shfl_xor_sync(0xffffffffu, ands, d);
  }
  if (threadIdx.x % 32 == 0) {
    warp_bits[threadIdx.x / 32][0] = ors;
    warp_bits[threadIdx.x / 32][1] = ands;
  }
  __syncthreads();
  for (int w = 0; w < kWarps; ++w) {
    ors |= warp_bits[w][0];
    ands &= warp_bits[w][1];
  }
  __syncthreads();  // before warp_bits is written again
}
// The sum of v over the threads of the block before this one. Every thread of the block calls
// it; `warp_sums` is a word of shared memory per warp.
template <int kThreads>
__device__ __forceinline__ unsigned lz_block_exclusive_sum(unsigned v, unsigned* warp_sums) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  unsigned inclusive = v;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const unsigned below = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += below;
  }
  if (lane == 31) warp_sums[warp] = inclusive;
  __syncthreads();
  unsigned before = 0;
  for (int w = 0; w < warp; ++w) before += warp_sums[w];
  __syncthreads();  // before warp_sums is written again
  return before + inclusive - v;
}

// A warp's part of a tile, item e of a lane being element e * 32 + lane of the part (digit
// kDigits for none): counts its digits into `counts` (the warp's own kDigits words of shared
// memory) and gives each item the number of equal digits before it in the part. `match` is
// another kDigits words of the warp's, zeroed here and after each item: each item ORs its lane's
// bit into its digit's word, one shared atomic where a ballot per digit bit took eight. Every lane
// of the warp calls it.
template <int kItems>
__device__ __forceinline__ void lz_warp_digit_counts(const unsigned (&digits)[kItems],
                                                     unsigned* counts, unsigned* match,
                                                     unsigned (&before)[kItems]) {
  const int lane = threadIdx.x % 32;
  const unsigned lanes_before = (1u << lane) - 1;
  for (int d = lane; d < kDigits; d += 32) {
    counts[d] = 0;
    match[d] = 0;
  }
  __syncwarp();
#pragma unroll
  for (int e = 0; e < kItems; ++e) {
    const bool valid = digits[e] < kDigits;
    if (valid) atomicOr(&match[digits[e]], 1u << lane);
    __syncwarp();
    const unsigned peers = valid ? match[digits[e]] : 0;
    const unsigned rank = __popc(peers & lanes_before);
    const unsigned seen = valid ? counts[digits[e]] : 0;
    before[e] = seen + rank;
    __syncwarp();
    if (valid && rank == 0) {
      counts[digits[e]] = seen + __popc(peers);
      match[digits[e]] = 0;
    }
    __syncwarp();
  }
}

// The OR of v over the warp's lanes.
__device__ __forceinline__ unsigned lz_warp_or(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_or_sync(0xffffffffu, v);
#else
#pragma unroll
  for (int d = 16; d >= 1; d /= 2) v |= __shfl_xor_sync(0xffffffffu, v, d);
  return v;
#endif
}
__device__ __forceinline__ unsigned long long lz_warp_or(unsigned long long v) {
  return (unsigned long long)lz_warp_or((unsigned)(v >> 32)) << 32 | lz_warp_or((unsigned)v);
}

// Adds a warp's keys to a block's counts of each pass's digits (`counts`, [pass][digit] of shared
// memory); the lanes holding a key (`valid`) come first. A digit the whole warp shares takes one
// add, where 32 would queue on one word: the high bytes of ids as i64 keys are such. Every lane
// of the warp calls it.
template <int kPasses, class Key>
__device__ __forceinline__ void lz_radix_count(Key key, bool valid, int first_bit,
                                               unsigned (*counts)[kDigits]) {
  const unsigned lanes = __ballot_sync(0xffffffffu, valid);
  const Key first = __shfl_sync(0xffffffffu, key, 0);  // every lane: a shuffle is the warp's
  const Key differ = lz_warp_or(valid ? key ^ first : (Key)0);
#pragma unroll
  for (int p = 0; p < kPasses; ++p) {
    const int shift = first_bit + p * kDigitBits;
    const unsigned digit = lz_radix_digit(key, shift);
    if ((differ >> shift) & (kDigits - 1)) {
      if (valid) atomicAdd(&counts[p][digit], 1u);
    } else if (threadIdx.x % 32 == 0 && lanes) {
      atomicAdd(&counts[p][digit], (unsigned)__popc(lanes));
    }
  }
}

// A tile's start among its row's tiles in a radix pass, by a decoupled look-back. Each tile has a
// word per digit: a tag over a count, the tag 2 p + 1 when the count is the tile's own in pass p
// and 2 p + 2 when it also counts every tile before it in the row; a tag of an earlier pass (or 0,
// cleared) means not yet. Each word is one relaxed 64-bit store at GPU scope, so its tag and
// count arrive together, and the counts are all a word depends on: no fence is needed. A tile
// publishes its own count of the caller's digit first (lz_radix_publish; the row's first tile has
// none before it and publishes only its inclusive word), works on, then looks back
// (lz_radix_look_back).
__device__ __forceinline__ unsigned long long lz_radix_tag(int pass, bool inclusive) {
  return (unsigned long long)(2 * pass + 1 + inclusive) << 32;
}
// (Before sm_70, which has no relaxed operations, volatile ones.)
__device__ __forceinline__ void lz_store_relaxed(unsigned long long* word, unsigned long long v) {
#if __CUDA_ARCH__ >= 700
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(word), "l"(v) : "memory");
#else
  *(volatile unsigned long long*)word = v;
#endif
}
__device__ __forceinline__ unsigned long long lz_load_relaxed(const unsigned long long* word) {
#if __CUDA_ARCH__ >= 700
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(word) : "memory");
  return v;
#else
  return *(const volatile unsigned long long*)word;
#endif
}
__device__ __forceinline__ void lz_radix_publish(unsigned long long* word, long long tiles_before,
                                                 int pass, unsigned own) {
  if (tiles_before > 0) lz_store_relaxed(word, lz_radix_tag(pass, false) | own);
}
// Adds up the counts before the tile, reading back from the tile before until a word counts those
// before it too; publishes that sum with the tile's own count and returns the sum.
__device__ __forceinline__ unsigned lz_radix_look_back(unsigned long long* word,
                                                       long long tiles_before, int pass,
                                                       unsigned own) {
  const unsigned long long own_tag = lz_radix_tag(pass, false);
  const unsigned long long inclusive_tag = lz_radix_tag(pass, true);
  unsigned sum = 0;
  for (long long t = 1; t <= tiles_before;) {
    const unsigned long long seen = lz_load_relaxed(word - t * kDigits);
    if (seen < own_tag) continue;  // that tile has not counted its digits in this pass yet
    sum += (unsigned)seen;
    if (seen >= inclusive_tag) break;
    ++t;
  }
  lz_store_relaxed(word, inclusive_tag | (sum + own));
  return sum;
}

// Each element's place in the stable order by digit of a tile whose warps hold consecutive parts
// (lz_warp_digit_counts' arrangement), and where each digit starts in the tile (`digit_start`).
// Every thread of the block calls it, a thread per digit; `warp_counts` and `warp_match` are
// [warps][kDigits] words of shared memory (lz_warp_digit_counts' counts and match words), and
// `warp_sums` a word per warp.
template <int kThreads, int kItems>
__device__ __forceinline__ void lz_radix_places(const unsigned (&digits)[kItems],
                                                unsigned (&places)[kItems],
                                                unsigned (*warp_counts)[kDigits],
                                                unsigned (*warp_match)[kDigits],
                                                unsigned* warp_sums, unsigned* digit_start) {
  static_assert(kThreads == kDigits, "a thread per digit");
  const int warp = threadIdx.x / 32;
  lz_warp_digit_counts(digits, warp_counts[warp], warp_match[warp], places);
  __syncthreads();
  // The warps' counts of digit threadIdx.x become where each warp's elements of it start.
  unsigned seen = 0;
  for (int w = 0; w < kThreads / 32; ++w) {
    const unsigned count = warp_counts[w][threadIdx.x];
    warp_counts[w][threadIdx.x] = seen;
    seen += count;
  }
  digit_start[threadIdx.x] = lz_block_exclusive_sum<kThreads>(seen, warp_sums);
  __syncthreads();
#pragma unroll
  for (int e = 0; e < kItems; ++e)
    if (digits[e] < kDigits) places[e] += digit_start[digits[e]] + warp_counts[warp][digits[e]];
}
