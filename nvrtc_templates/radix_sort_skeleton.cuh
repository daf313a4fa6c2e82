// Skeleton of a sort of rows longer than a tile (a top-k keeping more than the top-k kernel
// selects; see codegen/top_k_kernel.h); codegen fills the $-names. A least-significant-digit
// radix sort, kDigitBits of the order key a pass, run as three launches per pass for each chunk
// of rows whose buffers fit the scratch, a block per tile of every row of the chunk in each:
// step 0 counts each tile's digits, step 1 turns a row's counts into where each tile's elements
// of each digit go, step 2 moves each tile's elements there in the tile's stable order by digit,
// staged in shared memory so that stores are runs. The first pass reads the input through the
// producing work; the last writes the best k. Elements of equal keys keep the order of their
// positions through every pass: stable, and the same bits on every run. A pass whose digit is the
// same for every element of a row would leave it as it is, so the row skips it: the first pass
// finds the bits its keys differ in (ids below 65536 as i64 keys move in 2 passes of 8).
#include "lz_device.cuh"
#include "lz_order.cuh"

struct Args {
$ARGS};

// Four blocks an SM (64 registers, no spills for any key): left to itself ptxas gave the kernel 80
// to 100, three blocks or two, and [2048, 65536] f32 sorted in 9.2 ms against 7.7 (H200).
extern "C" __global__ void __launch_bounds__($THREADS, 4) $NAME(const Args a) {
  typedef $INDEX_TYPE Index;    // linear index into the iteration space
  typedef $OFFSET_TYPE Offset;  // element offset into a tensor's storage
  typedef $ACC Acc;
  typedef $RADIX_KEY Key;  // an order key's bits that can differ: 32, or 64 for i64
  constexpr int kThreads = $THREADS, kTile = $TILE, kItems = kTile / kThreads;
  constexpr int kWarps = kThreads / 32;
  // Below kFirstBit, keys whose higher bits are equal are equal (f16 and bf16 widened to f32).
  constexpr int kFirstBit = $FIRST_BIT;
  constexpr int kPasses = $PASSES;  // as many as the launches take
  static_assert((kPasses - 1) * kDigitBits < 8 * (int)sizeof(Key) - kFirstBit &&
                    kPasses * kDigitBits >= 8 * (int)sizeof(Key) - kFirstBit,
                "the passes cover the key's bits");
  const Index rows = (Index)a.rows;
  const Index extent = (Index)a.extent;
  const Index k = (Index)a.k;
  const Index tiles = (extent + kTile - 1) / kTile;
  // The launch's chunk of rows, pass and step.
  const Index first_row = (Index)(a.launch / (3 * kPasses)) * (Index)a.chunk_rows;
  const int pass = (int)(a.launch % (3 * kPasses)) / 3, step = (int)(a.launch % 3);
  const int shift = kFirstBit + pass * kDigitBits;
  const Index chunk_rows =
      rows - first_row < (Index)a.chunk_rows ? rows - first_row : (Index)a.chunk_rows;
  const Index segment_tiles = (Index)a.segment_tiles;
  const Index segments = (tiles + segment_tiles - 1) / segment_tiles;
  // Scratch over the chunk's rows: keys and positions as a pass leaves them (two buffers, one read
  // and one written), then the counts and bits below.
  const long long elements = (long long)chunk_rows * extent;
  Key* const keys_a = (Key*)a.scratch;
  Key* const keys_b = keys_a + elements;
  unsigned* const positions_a = (unsigned*)(keys_b + elements);
  unsigned* const positions_b = positions_a + elements;
  // Each tile's count of each digit, [row][tile][digit]; the same for segments of
  // a.segment_tiles tiles, [row][segment][digit]; and how many of a row's segments step 1 finished.
  unsigned* const digit_counts = positions_b + elements;
  unsigned* const segment_counts = digit_counts + (long long)chunk_rows * tiles * kDigits;
  unsigned* const segments_done = segment_counts + (long long)chunk_rows * segments * kDigits;
  // The OR and AND of each tile's keys, [row][tile][2]; the same for segments, [row][segment][2];
  // and the bits a row's keys differ in, [row]. The first is 8-byte aligned.
  Key* const tile_bits = (Key*)(segments_done + chunk_rows + chunk_rows % 2);
  Key* const segment_bits = tile_bits + (long long)chunk_rows * tiles * 2;
  Key* const row_varying = segment_bits + (long long)chunk_rows * segments * 2;
  __shared__ Key keys[kTile];
  __shared__ unsigned positions[kTile];
  __shared__ unsigned warp_counts[kWarps][kDigits];
  // Where each digit starts in the sorted tile, and in the row.
  __shared__ unsigned digit_start[kDigits], row_start[kDigits];
  __shared__ unsigned warp_sums[kWarps];
  __shared__ Key warp_bits[kWarps][2];
$UNIFORM_LOADS
  if (step == 1) {
    // A digit's elements of a tile go after the row's smaller digits, then after the digit's
    // elements of earlier segments, then of earlier tiles of the segment. A block per segment
    // leaves the last of these in the tile's counts and the segment's total in its own; the
    // row's last segment to finish turns the segments' totals into the first two.
    __shared__ bool last_segment;
    for (Index job = blockIdx.x; job < chunk_rows * segments; job += gridDim.x) {
      const Index chunk_row = job / segments, segment = job - chunk_row * segments;
      if (pass > 0 &&
          !((lz_radix_passes_made(row_varying[chunk_row], kFirstBit, kPasses) >> pass) & 1))
        continue;
      const Index first_tile = segment * segment_tiles;
      const Index held = tiles - first_tile < segment_tiles ? tiles - first_tile : segment_tiles;
      if (pass == 0) {
        // The first pass also gathers the bits the row's keys differ in: its tiles' into the
        // segment's, and (below) the segments' into the row's.
        Key ors, ands;
        lz_block_or_and<kWarps>(tile_bits + 2 * (chunk_row * tiles + first_tile), held, warp_bits,
                                ors, ands);
        if (threadIdx.x == 0) {
          segment_bits[2 * job] = ors;
          segment_bits[2 * job + 1] = ands;
          if (segments == 1) row_varying[chunk_row] = ors ^ ands;
        }
      }
      unsigned* const totals =
          segment_counts + (long long)chunk_row * segments * kDigits + threadIdx.x;
      totals[segment * kDigits] = lz_exclusive_sums<kDigits>(
          digit_counts + ((long long)chunk_row * tiles + first_tile) * kDigits + threadIdx.x, held,
          0u);
      if (segments > 1) {
        // Released by one thread after the block's barrier, acquired the same way.
        __syncthreads();
        if (threadIdx.x == 0) {
          __threadfence();
          last_segment = atomicAdd(&segments_done[chunk_row], 1u) == (unsigned)segments - 1;
          __threadfence();
        }
        __syncthreads();
        if (!last_segment) continue;
        if (pass == 0) {
          Key ors, ands;
          lz_block_or_and<kWarps>(segment_bits + 2 * chunk_row * segments, segments, warp_bits, ors,
                                  ands);
          if (threadIdx.x == 0) row_varying[chunk_row] = ors ^ ands;
        }
      }
      const unsigned total = lz_strided_sum<kDigits>(totals, segments);
      lz_exclusive_sums<kDigits>(totals, segments,
                                 lz_block_exclusive_sum<kThreads>(total, warp_sums));
    }
    return;
  }
  // The bits each row's keys differ in are known after the first pass's step 1.
  const bool rows_known = pass > 0 || step == 2;
  for (Index job = blockIdx.x; job < chunk_rows * tiles; job += gridDim.x) {
    const Index chunk_row = job / tiles, tile = (job - chunk_row * tiles) * kTile;
    const Index row = first_row + chunk_row;
    const long long row_at = (long long)chunk_row * extent;
    const int count = (int)(extent - tile < kTile ? extent - tile : kTile);
    // The passes this row makes (all but the first know them), how many came before this one,
    // and where that leaves its keys: the first made reads the input, the r-th writes buffer a
    // for r even, else b, and reads what the one before wrote; the last writes the best k.
    const unsigned made =
        rows_known ? lz_radix_passes_made(row_varying[chunk_row], kFirstBit, kPasses) : 1u;
    if (!((made >> pass) & 1)) continue;
    const int before = __popc(made & ((1u << pass) - 1));
    const bool reads_input = before == 0, last_pass = (made >> pass) == 1;
    // As offsets from buffer a (b follows it): two registers where pointers took eight.
    const long long read_at = before % 2 ? row_at : elements + row_at;
    const long long write_at = before % 2 ? elements + row_at : row_at;
    // The tile's keys with their digits, a warp taking consecutive elements of it
    // (lz_warp_digit_counts), 32 at a time (coalesced).
    const int first_slot = threadIdx.x / 32 * kItems * 32 + threadIdx.x % 32;
    Key item_keys[kItems];
    unsigned digits[kItems];
    Key ors = 0, ands = ~(Key)0;  // over the tile's keys, for the first pass's step 0
#pragma unroll
    for (int e = 0; e < kItems; ++e) {
      const int slot = first_slot + e * 32;
      digits[e] = kDigits;
      if (slot >= count) continue;
      if (reads_input) {
        const Index r = tile + slot;
        const Index i = row * extent + r;
$ELEMENT
        item_keys[e] = (Key)($KEY);
        ors |= item_keys[e];
        ands &= item_keys[e];
      } else {
        item_keys[e] = keys_a[read_at + tile + slot];
      }
      digits[e] = lz_radix_digit(item_keys[e], shift);
    }
    if (step == 0) {
      if (tile == 0 && threadIdx.x == 0) segments_done[chunk_row] = 0;
      // Counted in the warp's own counters: only equal digits of one warp's store contend.
      unsigned* const counts = warp_counts[threadIdx.x / 32];
      for (int d = threadIdx.x % 32; d < kDigits; d += 32) counts[d] = 0;
      __syncwarp();
#pragma unroll
      for (int e = 0; e < kItems; ++e)
        if (digits[e] < kDigits) atomicAdd(&counts[digits[e]], 1u);
      __syncthreads();
      unsigned count = 0;
      for (int w = 0; w < kWarps; ++w) count += warp_counts[w][threadIdx.x];
      digit_counts[(long long)job * kDigits + threadIdx.x] = count;
      __syncthreads();
      if (pass == 0) {
        lz_block_or_and<kWarps>(ors, ands, warp_bits);
        if (threadIdx.x == 0) {
          tile_bits[2 * job] = ors;
          tile_bits[2 * job + 1] = ands;
        }
      }
      continue;
    }
    const Index segment = (job - chunk_row * tiles) / segment_tiles;
    row_start[threadIdx.x] =
        digit_counts[(long long)job * kDigits + threadIdx.x] +
        segment_counts[((long long)chunk_row * segments + segment) * kDigits + threadIdx.x];
    unsigned places[kItems];
    lz_radix_places<kThreads, kItems>(digits, places, warp_counts, warp_sums, digit_start);
    // Positions are read only now: held through the ranking, they would not fit the registers.
#pragma unroll
    for (int e = 0; e < kItems; ++e) {
      if (digits[e] == kDigits) continue;
      const int slot = first_slot + e * 32;
      keys[places[e]] = item_keys[e];
      positions[places[e]] =
          reads_input ? (unsigned)(tile + slot) : positions_a[read_at + tile + slot];
    }
    __syncthreads();
    for (int j = threadIdx.x; j < count; j += kThreads) {
      const unsigned digit = lz_radix_digit(keys[j], shift);
      const Index to = (Index)row_start[digit] + (Index)(j - digit_start[digit]);
      if (last_pass) {
        if (to >= k) continue;
        const Index o = row * k + to;
        Acc value;
        lz_from_order_key($FROM_KEY, value);
        const long long at = positions[j];
$STORES
      } else {
        keys_a[write_at + to] = keys[j];
        positions_a[write_at + to] = positions[j];
      }
    }
    __syncthreads();
  }
}
