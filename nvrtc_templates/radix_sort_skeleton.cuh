// Skeleton of a sort of rows longer than a tile (a top-k keeping more than the top-k kernel
// selects; see codegen/top_k_kernel.h); codegen fills the $-names. A least-significant-digit
// radix sort, kDigitBits of the order key a pass, after Onesweep (Adinets and Merrill, 2022): for
// each chunk of rows whose buffers fit the scratch, launch 0 clears the chunk's counts, launch 1
// counts every pass's digits of every row (they do not depend on the order), then a launch per
// pass moves each tile's elements to their place, staged in shared memory in the tile's stable
// order by digit so that stores are runs. A tile learns where its digits go from the tiles before
// it in its row (a decoupled look-back), which publish their counts as soon as they know them.
// The first pass reads the input through the producing work; the last writes the best k. Elements
// of equal keys keep the order of their positions through every pass: stable, and the same bits
// on every run. A pass whose digit is the same for every element of a row would leave it as it
// is, so the row skips it (ids below 65536 as i64 keys move in 2 passes of 8).
#include "lz_device.cuh"
#include "lz_order.cuh"

struct Args {
$ARGS};

// Held to a number of blocks an SM that depends on the tile (codegen/top_k_kernel.cpp): left to
// itself ptxas gave an earlier version of 2048-element tiles 80 to 100 registers, three blocks or
// two, and [2048, 65536] f32 sorted in 9.2 ms against 7.7 at four; tiles of 4096 are fastest at
// three (H200).
extern "C" __global__ void __launch_bounds__($THREADS, $BLOCKS_PER_SM) $NAME(const Args a) {
  typedef $INDEX_TYPE Index;    // linear index into the iteration space
  typedef $OFFSET_TYPE Offset;  // element offset into a tensor's storage
  typedef $ACC Acc;
  typedef $RADIX_KEY Key;  // an order key's bits that can differ: 32, or 64 for i64
  constexpr int kThreads = $THREADS, kTile = $TILE, kItems = kTile / kThreads;
  constexpr int kBlocksPerSm = $BLOCKS_PER_SM;
  constexpr int kWarps = kThreads / 32;
  // Below kFirstBit, keys whose higher bits are equal are equal (f16 and bf16 widened to f32).
  constexpr int kFirstBit = $FIRST_BIT;
  constexpr int kPasses = $PASSES;  // as many as the launches take
  static_assert((kPasses - 1) * kDigitBits < 8 * (int)sizeof(Key) - kFirstBit &&
                    kPasses * kDigitBits >= 8 * (int)sizeof(Key) - kFirstBit,
                "the passes cover the key's bits");
  static_assert(kPasses <= kWarps, "the count launch keeps a pass's counts in a warp's");
  const Index rows = (Index)a.rows;
  const Index extent = (Index)a.extent;
  const Index k = (Index)a.k;
  const Index tiles = (extent + kTile - 1) / kTile;
  // The launch's chunk of rows, and what it does: 0 clears, 1 counts, then the passes.
  const Index first_row = (Index)(a.launch / (kPasses + 2)) * (Index)a.chunk_rows;
  const int step = (int)(a.launch % (kPasses + 2)), pass = step - 2;
  const Index chunk_rows =
      rows - first_row < (Index)a.chunk_rows ? rows - first_row : (Index)a.chunk_rows;
  const Index jobs = chunk_rows * tiles;  // a tile of a row each
  // Scratch over the chunk's rows: keys and positions as a pass leaves them (two buffers, one read
  // and one written); each tile's word per digit that the look-back reads, [row][tile][digit]
  // (lz_radix_look_back); each row's count of each digit in each pass, [row][pass][digit]; each
  // row's OR and AND of its keys; and the next tile to take in each pass.
  const long long elements = (long long)chunk_rows * extent;
  Key* const keys_a = (Key*)a.scratch;
  unsigned* const positions_a = (unsigned*)(keys_a + 2 * elements);
  unsigned long long* const tile_words = (unsigned long long*)(positions_a + 2 * elements);
  unsigned* const digit_totals = (unsigned*)(tile_words + (long long)jobs * kDigits);
  Key* const row_bits = (Key*)(digit_totals + (long long)chunk_rows * kPasses * kDigits);
  unsigned* const next_job = (unsigned*)(row_bits + 2 * chunk_rows);
  __shared__ Key keys[kTile];
  __shared__ unsigned positions[kTile];
  __shared__ unsigned warp_counts[kWarps][kDigits];
  // Where each digit starts in the sorted tile, and in the row.
  __shared__ unsigned digit_start[kDigits], row_start[kDigits];
  __shared__ unsigned warp_sums[kWarps];
  __shared__ Key warp_bits[kWarps][2];
  __shared__ unsigned taken_job;
$UNIFORM_LOADS
  // A tile's keys (`count` of them from `tile`), a warp taking consecutive elements of it
  // (lz_warp_digit_counts), 32 at a time (coalesced): from the input or from a pass's buffer.
  // Slots past the count read the tile's last element, so that no load sits behind a branch:
  // ptxas would not start one before the last came back (a latency an item, in a row).
  const int first_slot = threadIdx.x / 32 * kItems * 32 + threadIdx.x % 32;
  auto load_keys = [&](Index row, Index tile, int count, bool reads_input, long long read_at,
                       Key(&item_keys)[kItems]) {
#pragma unroll
    for (int e = 0; e < kItems; ++e) {
      const int slot = min(first_slot + e * 32, count - 1);
      if (reads_input) {
        const Index r = tile + slot;
        const Index i = row * extent + r;
$ELEMENT
        item_keys[e] = (Key)($KEY);
      } else {
        item_keys[e] = keys_a[read_at + tile + slot];
      }
    }
  };
  if (step == 0) {
    const long long stride = (long long)gridDim.x * kThreads;
    const long long first = (long long)blockIdx.x * kThreads + threadIdx.x;
    for (long long w = first; w < (long long)jobs * kDigits; w += stride) tile_words[w] = 0;
    for (long long w = first; w < (long long)chunk_rows * kPasses * kDigits; w += stride)
      digit_totals[w] = 0;
    for (long long r = first; r < chunk_rows; r += stride) {
      row_bits[2 * r] = 0;
      row_bits[2 * r + 1] = ~(Key)0;
    }
    if (first < kPasses) next_job[first] = 0;
    return;
  }
  if (step == 1) {
    // One wave of blocks (as many an SM as the launch bounds let run at once), each taking a run
    // of consecutive tiles, so that a row's totals take few atomic adds.
    unsigned sms;
    asm("mov.u32 %0, %%nsmid;" : "=r"(sms));
    const Index counting = gridDim.x < kBlocksPerSm * sms ? gridDim.x : kBlocksPerSm * sms;
    if (blockIdx.x >= counting) return;
    const Index per_block = (jobs + counting - 1) / counting;
    const Index first_job = blockIdx.x * per_block;
    const Index end_job = jobs < first_job + per_block ? jobs : first_job + per_block;
    for (int p = 0; p < kPasses; ++p) warp_counts[p][threadIdx.x] = 0;  // a pass's counts each
    Key ors = 0, ands = ~(Key)0;
    __syncthreads();
    for (Index job = first_job; job < end_job; ++job) {
      const Index chunk_row = job / tiles, tile = (job - chunk_row * tiles) * kTile;
      const int count = (int)(extent - tile < kTile ? extent - tile : kTile);
      Key item_keys[kItems];
      load_keys(first_row + chunk_row, tile, count, true, 0, item_keys);
#pragma unroll
      for (int e = 0; e < kItems; ++e) {
        const bool valid = first_slot + e * 32 < count;
        lz_radix_count<kPasses>(item_keys[e], valid, kFirstBit, warp_counts);
        if (valid) {
          ors |= item_keys[e];
          ands &= item_keys[e];
        }
      }
      // The block adds its counts to a row's totals after its last tile of the row.
      if (job + 1 < end_job && (job + 1) % tiles != 0) continue;
      __syncthreads();
      for (int p = 0; p < kPasses; ++p) {
        const unsigned c = warp_counts[p][threadIdx.x];
        if (c) atomicAdd(&digit_totals[(chunk_row * kPasses + p) * kDigits + threadIdx.x], c);
        warp_counts[p][threadIdx.x] = 0;
      }
      lz_block_or_and<kWarps>(ors, ands, warp_bits);  // ends with a barrier
      if (threadIdx.x == 0) {
        atomicOr(&row_bits[2 * chunk_row], ors);
        atomicAnd(&row_bits[2 * chunk_row + 1], ands);
      }
      ors = 0;
      ands = ~(Key)0;
    }
    return;
  }
  const int shift = kFirstBit + pass * kDigitBits;
  // A chunk of one row that skips the pass skips the launch.
  if (chunk_rows == 1 &&
      !((lz_radix_passes_made(row_bits[0] ^ row_bits[1], kFirstBit, kPasses) >> pass) & 1))
    return;
  // Blocks take tiles in order, so that the tiles one looks back at are held by running blocks.
  for (;;) {
    // The barrier also keeps this tile's shared memory from the last one's.
    if (threadIdx.x == 0) taken_job = atomicAdd(&next_job[pass], 1u);
    __syncthreads();
    const Index job = taken_job;
    if (job >= jobs) return;
    const Index chunk_row = job / tiles, tile_index = job - chunk_row * tiles;
    const Index tile = tile_index * kTile;
    const Index row = first_row + chunk_row;
    const long long row_at = (long long)chunk_row * extent;
    const int count = (int)(extent - tile < kTile ? extent - tile : kTile);
    // The passes this row makes, how many came before this one, and where that leaves its keys:
    // the first made reads the input, the r-th writes buffer a for r even, else b, and reads what
    // the one before wrote; the last writes the best k.
    const unsigned made = lz_radix_passes_made(
        row_bits[2 * chunk_row] ^ row_bits[2 * chunk_row + 1], kFirstBit, kPasses);
    if (!((made >> pass) & 1)) {
      __syncthreads();  // before taken_job is written again
      continue;
    }
    const int before = __popc(made & ((1u << pass) - 1));
    const bool reads_input = before == 0, last_pass = (made >> pass) == 1;
    // As offsets from buffer a (b follows it): two registers where pointers took eight.
    const long long read_at = before % 2 ? row_at : elements + row_at;
    const long long write_at = before % 2 ? elements + row_at : row_at;
    Key item_keys[kItems];
    load_keys(row, tile, count, reads_input, read_at, item_keys);
    unsigned digits[kItems];
#pragma unroll
    for (int e = 0; e < kItems; ++e)
      digits[e] = first_slot + e * 32 < count ? lz_radix_digit(item_keys[e], shift) : kDigits;
    // Where the row's elements of digit threadIdx.x start: after its smaller digits' (the
    // totals), then after the digit's of the tiles before (the look-back).
    const unsigned row_digit_start = lz_block_exclusive_sum<kThreads>(
        digit_totals[(chunk_row * kPasses + pass) * kDigits + threadIdx.x], warp_sums);
    unsigned places[kItems];
    // The ranking's match words take the staging positions' place, unused until it ends.
    static_assert(kTile >= kWarps * kDigits, "the match words fit the positions");
    lz_radix_places<kThreads, kItems>(digits, places, warp_counts,
                                      (unsigned(*)[kDigits])positions, warp_sums, digit_start);
    const unsigned tile_digits =
        (threadIdx.x + 1 < kDigits ? digit_start[threadIdx.x + 1] : (unsigned)count) -
        digit_start[threadIdx.x];
    unsigned long long* const word = tile_words + (long long)job * kDigits + threadIdx.x;
    lz_radix_publish(word, tile_index, pass, tile_digits);
    // Positions are read only now: held through the ranking, they would not fit the registers.
    // Staging the tile also gives the tiles before it time to publish.
#pragma unroll
    for (int e = 0; e < kItems; ++e) {
      if (digits[e] == kDigits) continue;
      const int slot = first_slot + e * 32;
      keys[places[e]] = item_keys[e];
      positions[places[e]] =
          reads_input ? (unsigned)(tile + slot) : positions_a[read_at + tile + slot];
    }
    row_start[threadIdx.x] =
        row_digit_start + lz_radix_look_back(word, tile_index, pass, tile_digits);
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
  }
}
