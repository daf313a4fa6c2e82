// Which reductions are computed in two stages, and how: a pure function of the reduction's op,
// its input's shape and the axes it folds. One kernel per result block leaves the GPU idle when
// there are few results of long folds; splitting the fold gives it parallel work, in a fixed
// order so that results are the same on every run. fuse/split_reductions.h builds the stages.
#pragma once

#include <cstdint>
#include <string>

#include "ir/op.h"
#include "lazy/shape.h"

namespace lazy::fuse {

// A full reduction of at least this many elements is folded in two stages (chunks, then the
// chunks' results): a reduction kernel gives each result one block, and one block folding a
// whole large tensor leaves the GPU idle (67M floats took 98 ms on H100 in one block). Chunks of
// 16384 (rows a row kernel holds in registers) summed [16384, 4096] f32 at 87.6% of copy
// bandwidth on H100, against 86.8% for 4096 and 85.8% for 65536.
inline constexpr std::int64_t kTwoStageMinElements = std::int64_t(1) << 16;
inline constexpr std::int64_t kTwoStageChunk = 16384;

// Fewer results than this (about two per SM of an H100) leave SMs idle when each is one block.
inline constexpr std::int64_t kFewResults = 256;

// A reduction over a block of axes with kept axes after it (over axis 0 of [16384, 4096], over the
// middle axis of [A, E, B]) runs as a column kernel, whose blocks of 256 threads each fold 8 to 64
// neighbouring results (codegen/column_reduction.h). A long fold of fewer results than this is
// split, so that the first stage has 1024 blocks of 64 results: one wave of 8 blocks on each of an
// H100's 132 SMs. Measured on H100 for sum over axis 0 of [16384, 4096] f32: 2^16 (16 runs) 1%
// faster than 2^15 or 2^17, 9% faster than 2^14.
inline constexpr std::int64_t kColumnSplitResults = std::int64_t(1) << 16;
// Shorter folds take a few elements per thread in one kernel, sooner than two kernels do. On H100,
// sum over axis 0 of [E, 4096] f32 was faster in one stage up to E = 1024 and in two from E = 2048
// (0.028 to 0.025 ms); [4096, 1024]: 0.031 to 0.017 ms.
inline constexpr std::int64_t kColumnSplitMinExtent = 2048;
// Nor are small ones split: a second kernel costs a few microseconds.
inline constexpr std::int64_t kColumnSplitMinElements = std::int64_t(1) << 21;
// Elements each first-stage result folds at least, so that the second stage, which reads the
// partials, moves at most a sixty-fourth of the first's bytes.
inline constexpr std::int64_t kColumnSplitMinChunk = 64;
// Partials each result of the second stage folds at most, so that it stays short when there are
// very few results (then it gives each result a block: at most 8 partials per thread).
inline constexpr std::int64_t kColumnSplitMaxChunks = 2048;

// A split arg-reduction over an outer axis reads its input twice (the column kernel folds the
// runs' max and argmax in two kernels), which pays only where one stage starves the GPU. On H100,
// argmax over axis 0 of [65536, 256] f32: 0.077 ms split against 0.15; [16384, 4096]: 0.20
// against 0.13.
inline constexpr std::int64_t kArgColumnSplitMaxResults = 1024;

enum class SplitKind : std::uint8_t {
  none,
  // A full reduction: chunks of kTwoStageChunk, then the chunks' results (and the elements past
  // the last whole chunk on their own).
  chunks,
  // Few long rows (over the trailing axes): each row in chunks of kTwoStageChunk, then the chunks.
  row_chunks,
  // argmax or argmin over one long axis (or all axes, as one flat axis): runs give their extreme
  // value and its position in one pass, then the runs' extremes fold in order.
  arg_runs,
  // Few results of a long fold over a block of axes with kept axes after it: the first folded
  // axis is cut into runs, each folded into a partial, then the partials.
  column_runs,
};

struct ReductionSplit {
  SplitKind kind = SplitKind::none;
  // arg_runs: the folded axis (0 when flat); column_runs: the axis cut into runs.
  int axis = 0;
  bool flat = false;        // arg_runs over every axis: positions are flat indices
  std::int64_t length = 0;  // arg_runs: elements of each run
  std::int64_t runs = 0;    // column_runs: how many runs the axis is cut into
  std::string why;          // the numbers that decided it, for LAZY_DEBUG=2
};

// The reduction result's shape: `input` without the axes in `mask` (kept as 1s with keepdim).
Shape reduced_shape(const Shape& input, std::uint64_t mask, bool keepdim);

// How reduction `op` over the axes in `mask` of `input` is split (kind none: it is not).
ReductionSplit choose_split(ir::Op op, const Shape& input, std::uint64_t mask);

// Whether the softmax family's sum of exp(v - max) over a last axis of `extent` elements folds in
// chunks with the online-softmax rescaling (see fuse/exp_sum_chunks.h).
bool folds_exp_sum_in_chunks(std::int64_t extent);

std::string_view split_kind_name(SplitKind kind);

}  // namespace lazy::fuse
