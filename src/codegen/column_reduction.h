// Column reductions: reductions whose folded elements lie outside the kept ones in memory (a sum
// over axis 0 of [16384, 4096], or over the middle axis of [A, E, B]), so that neighbouring
// results are neighbours in memory. One block per result would read addresses a whole row apart
// from thread to thread; a column kernel gives each thread a few neighbouring results instead, so a
// warp reads rows of consecutive elements. A pure function of layouts and sizes, like
// plan_iteration_space, so tests can check it alone.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "codegen/iteration_space.h"

namespace lazy::codegen {

struct ColumnReduction {
  // The kept dims (one per result), merged, with each access's offset and strides over them.
  // Every access that varies is `strided`: a thread adds the folded offset to its kept one. Its
  // vector_width is the results a thread folds at once, with one 16-byte load per tensor.
  IterationSpace kept;
  std::vector<std::int64_t> folded_strides;  // per access: its stride along the folded elements
  std::int64_t extent;                       // elements folded into each result
  std::int64_t groups;                       // results / vector width: one per thread of a slice
  // A block's threads: `lanes` along the groups times threads_per_block / lanes slices, which
  // split the folded elements between them and combine in a fixed order.
  int lanes;
};

// Neighbouring results a block's lanes cover together: 64 where there are enough of them (runs of
// 256 bytes of f32 per row, 128 of bf16; on H100 sum over axis 0 of [16384, 4096] f32 took 1% less
// time than with 32, 5% less than with 128), down to 8 (32 bytes of f32) while that gives fewer
// than kColumnTargetBlocks blocks.
inline constexpr int kColumnResultsPerBlockRow = 64;
inline constexpr int kColumnMinResultsPerRow = 8;
// One wave on an H100: 8 blocks of 256 threads on each of its 132 SMs.
inline constexpr std::int64_t kColumnTargetBlocks = 1024;
// A column kernel folding more elements per result than a block has threads, in fewer blocks than
// this (the SMs of an H100) and than results (the blocks of the kernel that gives each result a
// block), leaves SMs idle that the other uses: [1000003, 3] over axis 0 (3 results) took 5.8 ms
// in one column block.
inline constexpr std::int64_t kColumnMinBlocks = 132;
// At most this many results per thread: each needs an accumulator (and a position for argmax)
// in registers and in the block's shared memory.
inline constexpr int kMaxColumnVectorWidth = 8;

// The column plan of a reduction region whose iteration space `shape` has its last `folded_rank`
// dims folded, or nothing when its accesses do not walk it as columns: the folded dims must walk
// as one dim in every access, and every load must read consecutive results at consecutive
// addresses (kept stride 1, or 0 for a broadcast), at least one of them at stride 1; and a long
// fold must not leave SMs idle (kColumnMinBlocks).
std::optional<ColumnReduction> plan_column_reduction(const Shape& shape, int folded_rank,
                                                     std::span<const Access> accesses,
                                                     int threads_per_block);

}  // namespace lazy::codegen
