// Device helpers for ordering (top-k, sort, scatters): order keys, the bitonic sort of shared
// memory candidates, merge-path splits, and searches a whole warp makes together.
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
        const int high = stride == size / 2 ? (low / size) * size + size - 1 - low % size
                                            : low + stride;
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

// How many of the first `diagonal` elements of the merge of sorted runs a (a_count long) and b
// (b_count) come from a: the merge path's crossing, by binary search along the diagonal.
template <class Index>
__device__ __forceinline__ Index lz_merge_split(const unsigned long long* a_keys,
                                                const unsigned* a_positions, Index a_count,
                                                const unsigned long long* b_keys,
                                                const unsigned* b_positions, Index b_count,
                                                Index diagonal) {
  Index low = diagonal > b_count ? diagonal - b_count : 0;
  Index high = diagonal < a_count ? diagonal : a_count;
  while (low < high) {
    const Index mid = (low + high) / 2;
    const Index b = diagonal - 1 - mid;
    if (lz_ranks_before(b_keys[b], b_positions[b], a_keys[mid], a_positions[mid]))
      high = mid;
    else
      low = mid + 1;
  }
  return low;
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

// lz_merge_split's crossing found by the whole warp (a merge through global memory, where each
// probe is a long wait).
__device__ __forceinline__ long long lz_warp_merge_split(const unsigned long long* a_keys,
                                                         const unsigned* a_positions,
                                                         long long a_count,
                                                         const unsigned long long* b_keys,
                                                         const unsigned* b_positions,
                                                         long long b_count, long long diagonal,
                                                         int lane) {
  const long long low = diagonal > b_count ? diagonal - b_count : 0;
  const long long high = diagonal < a_count ? diagonal : a_count;
  return lz_warp_partition_point(
      [&](long long mid) {
        const long long b = diagonal - 1 - mid;
        return lz_ranks_before(b_keys[b], b_positions[b], a_keys[mid], a_positions[mid]);
      },
      low, high, lane);
}

// Output positions [out, out_end) (at most kThreads * kItems) of the merge of sorted runs a and
// b in global memory, into keys and positions [0, out_end - out) in shared memory: warps 0 and 1
// find where the tile starts and ends in a and b, the block stages those elements, and each thread
// merges kItems from where the merge path crosses its diagonal. Every thread of the block calls
// it; `split_at` is two shared words.
template <int kThreads, int kItems>
__device__ __forceinline__ void lz_merge_tile(const unsigned long long* a_keys,
                                              const unsigned* a_positions, long long a_count,
                                              const unsigned long long* b_keys,
                                              const unsigned* b_positions, long long b_count,
                                              long long out, long long out_end,
                                              unsigned long long* keys, unsigned* positions,
                                              long long* split_at) {
  if (threadIdx.x < 64) {
    const long long split =
        lz_warp_merge_split(a_keys, a_positions, a_count, b_keys, b_positions, b_count,
                            threadIdx.x < 32 ? out : out_end, threadIdx.x % 32);
    if (threadIdx.x % 32 == 0) split_at[threadIdx.x / 32] = split;
  }
  __syncthreads();
  const long long a_from = split_at[0], b_from = out - split_at[0];
  const int a_held = (int)(split_at[1] - a_from);
  const int held = (int)(out_end - out);
  for (int e = threadIdx.x; e < held; e += kThreads) {
    const bool from_a = e < a_held;
    keys[e] = from_a ? a_keys[a_from + e] : b_keys[b_from + e - a_held];
    positions[e] = from_a ? a_positions[a_from + e] : b_positions[b_from + e - a_held];
  }
  __syncthreads();
  unsigned long long merged_keys[kItems];
  unsigned merged_positions[kItems];
  const int diagonal = threadIdx.x * kItems < held ? threadIdx.x * kItems : held;
  int from_a = lz_merge_split<int>(keys, positions, a_held, keys + a_held, positions + a_held,
                                   held - a_held, diagonal);
  int from_b = a_held + diagonal - from_a;
#pragma unroll
  for (int e = 0; e < kItems; ++e) {
    const bool take_a =
        from_b >= held || (from_a < a_held && lz_ranks_before(keys[from_a], positions[from_a],
                                                               keys[from_b], positions[from_b]));
    const int from = take_a ? from_a++ : from_b++;
    merged_keys[e] = from < held ? keys[from] : 0;
    merged_positions[e] = from < held ? positions[from] : 0;
  }
  __syncthreads();
#pragma unroll
  for (int e = 0; e < kItems; ++e) {
    if (diagonal + e < held) {
      keys[diagonal + e] = merged_keys[e];
      positions[diagonal + e] = merged_positions[e];
    }
  }
  __syncthreads();
}
