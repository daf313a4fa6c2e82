// How a row kernel (row_kernel_emitter.h) lays threads on rows: a pure function of the row's
// length and register needs, so tests can check it alone.
#pragma once

#include <cstdint>

namespace lazy::codegen {

// How a row kernel lays threads on rows, chosen from the row's length.
struct RowLaunch {
  int row_threads;  // threads folding one row: 1 to 32 (a warp holds several rows) or a block
  int block;        // threads per block
  int items;        // vector groups each thread holds in registers; 0: loops over the row
  int vector_width;
};

// `groups`: the row's length in vector groups; `held_words`: 32-bit registers a thread needs per
// group it holds.
RowLaunch choose_row_launch(std::int64_t groups, int vector_width, int held_words);

// The launch of a row kernel that takes the row's length at run time: each of its `rows` has
// `groups` of `vector_width` elements, a few a thread (fewer when there are few rows), by up to
// kMaxRunTimeRowThreads threads a row. Its source asks for kMinRunTimeBlocksPerSm blocks an SM
// (64 registers a thread at most): a block's loads then overlap another's reductions. On H200
// (every row length at run time), the full sum's rows of 16384 f32 took 0.125 ms in blocks of
// 1024 (42 registers, one block an SM) and 0.075 in blocks of 512; cross_entropy 0.446 and 0.368
// ms; blocks of 256 lost elsewhere.
// A row that phases read more than once (`held_words` 32-bit registers a group, 0 for none) is
// held in registers where its groups take at most kMaxRunTimeHeldWords a thread; otherwise the
// kernel loops over the row. On H200 softmax [8192, 8192] f32 took 0.214 ms looping and 0.174
// held, bf16 0.151 and 0.129; layer_norm f32 (48 words held) 0.174 looping and 0.197 held at 86
// registers, which allowed half the threads an SM.
inline constexpr int kMaxRunTimeRowThreads = 512;
inline constexpr int kMinRunTimeBlocksPerSm = 2;
inline constexpr int kMaxRunTimeHeldWords = 32;
RowLaunch choose_run_time_row_launch(std::int64_t rows, std::int64_t groups, int vector_width,
                                     int held_words);
// Whether a run-time row of `groups` groups is short enough to hold (if its registers allow).
bool run_time_row_may_hold(std::int64_t groups);

// Groups a thread that loops over its row loads before it computes with any of them, when a
// group's loads take `bytes_per_group`: enough loads in flight to cover memory's latency.
int looped_loads_in_flight(int bytes_per_group);

}  // namespace lazy::codegen
