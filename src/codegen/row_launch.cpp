#include "codegen/row_launch.h"

#include <algorithm>
#include <bit>

#include "ir/integer_math.h"
#include "ir/settings.h"

namespace lazy::codegen {

namespace {

using ir::ceil_div;

// Threads per block when a warp holds several rows.
constexpr int kShortRowBlock = 256;
// Rows of at most this many vector groups are folded by a warp or a slice of one.
constexpr std::int64_t kShortRowGroups = 128;
// Elements a thread of a short row holds at most. On H100 a masked softmax over rows of 1024
// bf16 (groups of 16 for the mask) took 0.795 ms with 16 threads a row (64 elements each) and
// 0.327 ms with 32.
constexpr std::int64_t kShortRowElements = 32;
// Groups a thread holds at most, and the registers it gives them: beyond either, more threads
// share the row, then the row is looped over instead of held.
constexpr int kMaxItems = 8;
constexpr int kMaxHeldWords = 64;
// A short row spreads over more threads sooner. Attention's softmax backward over rows of 1024
// (bf16 gradient, bool mask, the recomputed probabilities kept: 56 words at 32 threads a row)
// took 0.411 ms at 32 threads and 0.275 ms at 64 (H200); its forward (24 words) 0.189 ms at 32
// and 0.197 at 64.
constexpr int kMaxShortRowHeldWords = 48;
// Groups per thread a row kernel aims at, with up to a block of 1024 threads per row. Fewer
// threads a row make its reductions' barriers cheaper and let more rows share an SM. Measured on
// H200, four against two: layer_norm [16384, 4096] f32 0.135 against 0.169 ms, bf16 0.072 against
// 0.088; softmax [8192, 8192] f32 0.134 against 0.139; add + rms_norm f32 0.266 against 0.264. On
// H100 it had been level for memory-bound rows (softmax f32 2949 GB/s at four against 2959 at
// two) and four had won where exp dominates (softmax bf16 0.110 ms against 0.121).
constexpr int kItemsWanted = 4;
constexpr int kMaxRowThreads = 1024;
constexpr int kLoopedRowThreads = 512;
// Groups each thread of a run-time-length row takes at most, up to kMaxRunTimeRowThreads
// threads: a few loop trips, or the groups a thread holds, and reductions across as few warps as
// that allows.
constexpr std::int64_t kRunTimeRowGroups = 4;
// Threads a run-time row kernel's rows keep busy at least: few rows (a serving step's batch)
// spread over more threads, down to a group each. bench_host's lengths rows (softmax then
// layer_norm on [64, L], H200) waited for the GPU 14.9 us a step at L = 2048 with four groups a
// thread, 11.7 us so (12.6 with single elements and no loads ahead); with L random up to 4096,
// 15.3, 14.7 and 12.7 us.
constexpr std::int64_t kRunTimeThreadsToFill = std::int64_t(1) << 17;
// Bytes a looping thread loads before computing, and the groups that may take. On H200, with
// every row kernel taking its length at run time, layer_norm [16384, 4096] f32 took 0.517 ms
// loading one element at a time and 0.167 ms loading four vectors of 4 ahead (its kernel compiled
// for the length: 0.168 ms); softmax [8192, 8192] bf16 0.385 and 0.152 ms. 64 bytes ahead made a
// multi-phase kernel spill under two blocks an SM (softmax f32 over single elements: 132 bytes);
// 32 bytes ahead, in one sitting against 64: bench_host's lengths rows waited 12.0 us a step
// for the GPU against 14.7 with L random, 10.3 against 11.7 at L = 2048; softmax f32 0.216
// against 0.233 ms; layer_norm f32 0.175 against 0.167, cross_entropy 0.389 against 0.369.
constexpr int kLoopedBytesInFlight = 32;
constexpr int kMaxLoopedLoadsInFlight = 16;

int pow2_at_least(std::int64_t n) {
  return int(std::bit_ceil(std::uint64_t(std::max<std::int64_t>(n, 1))));
}

}  // namespace

RowLaunch choose_row_launch(std::int64_t groups, int vector_width, int held_words_per_group) {
  groups = std::max<std::int64_t>(groups, 1);
  RowLaunch launch{0, 0, 0, vector_width};
  auto items_for = [&](int threads) { return pow2_at_least(ceil_div(groups, threads)); };
  // Short rows: four groups a thread, but no more than kShortRowElements elements, so that wide
  // groups (16 elements where a bool mask sits beside bf16 scores) do not pile up in registers.
  const int short_row_threads =
      std::max(pow2_at_least(ceil_div(groups, 4)),
               pow2_at_least(ceil_div(groups * vector_width, kShortRowElements)));
  launch.row_threads =
      groups <= kShortRowGroups
          ? std::min(short_row_threads, 32)
          : std::clamp(pow2_at_least(ceil_div(groups, kItemsWanted)), 64, kMaxRowThreads);
  if (items_for(launch.row_threads) > kMaxItems)
    launch.row_threads = std::min(pow2_at_least(ceil_div(groups, kMaxItems)), kMaxRowThreads);
  // LAZY_ROW_THREADS: threads per row (a power of two up to 1024), for tuning.
  static const int forced = int(ir::integer_setting(ir::Setting::row_threads));
  if (forced > 0) launch.row_threads = forced;
  launch.items = items_for(launch.row_threads);
  // Fewer held registers per thread: more threads share the row.
  const int held_words = groups <= kShortRowGroups ? kMaxShortRowHeldWords : kMaxHeldWords;
  while (launch.items * held_words_per_group > held_words && launch.items > 1 &&
         launch.row_threads < kMaxRowThreads) {
    launch.row_threads *= 2;
    launch.items = items_for(launch.row_threads);
  }
  if (launch.items > kMaxItems || launch.items * held_words_per_group > kMaxHeldWords) {
    launch.items = 0;
    launch.row_threads = std::min(pow2_at_least(groups), kLoopedRowThreads);
  }
  launch.block = launch.row_threads <= 32 ? kShortRowBlock : launch.row_threads;
  return launch;
}

RowLaunch choose_run_time_row_launch(std::int64_t rows, std::int64_t groups, int vector_width,
                                     int held_words) {
  int row_threads =
      std::min(pow2_at_least(ceil_div(groups, kRunTimeRowGroups)), kMaxRunTimeRowThreads);
  const int most = std::min(pow2_at_least(groups), kMaxRunTimeRowThreads);
  while (row_threads < most && rows * row_threads < kRunTimeThreadsToFill) row_threads *= 2;
  const bool held = held_words > 0 && run_time_row_may_hold(groups) &&
                    kRunTimeRowGroups * held_words <= kMaxRunTimeHeldWords;
  return {row_threads, row_threads <= 32 ? kShortRowBlock : row_threads,
          held ? int(kRunTimeRowGroups) : 0, vector_width};
}

bool run_time_row_may_hold(std::int64_t groups) {
  return groups <= kRunTimeRowGroups * kMaxRunTimeRowThreads;
}

int looped_loads_in_flight(int bytes_per_group) {
  if (bytes_per_group <= 0) return 1;
  return std::clamp(kLoopedBytesInFlight / bytes_per_group, 1, kMaxLoopedLoadsInFlight);
}

}  // namespace lazy::codegen
