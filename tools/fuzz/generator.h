// Random, valid programs from (seed, index): every public op and view, matrix products among
// them, every dtype, ranks 0 to 6, sizes that are 0, 1, odd or large, broadcasts, negative-step
// slices and reshapes of non-contiguous views; some intermediates held, most dropped.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "tools/fuzz/program.h"
#include "tools/fuzz/random_choices.h"

namespace lazy::fuzz {

// Each generation draws from more ops, so the programs a (seed, index) names change with it; a
// test naming a program found earlier asks for the generation it was found in.
// 2: floor_divide, remainder, fmod and trunc.
// 3: a quarter of the data leaves in memory taken in through from_blob (DataSpec::external),
// picked by their key so that the rest of each program stays generation 2's.
// 4: tril, triu and masked_fill.
// 5: bitwise_and, _or, _xor, _not and the shifts; tan, asin, acos, atan, sinh, cosh, asinh,
// acosh, atanh and log10.
// 6: roll, repeat, tile and pad (all four modes, negative padding among them).
// 7: median, nanmedian, kthvalue, quantile and nanquantile (every interpolation), cdist.
// 8: the activations (activation_rules.h) among the unary ops; the element-wise losses with
// each reduction (loss_steps.h).
// 9: flip, diagonal, narrow and pieces of chunk, split and unbind (view_steps.h); nansum, nanmean,
// count_nonzero and vector_norm (statistic_steps.h).
// 10: logit, nan_to_num and threshold among the unary ops (guard_rules.h); glu, normalize and
// cosine_similarity (row_steps.h).
// 11: isclose, pairwise_distance, outer and one_hot (pair_steps.h); trace among the statistics;
// binary_cross_entropy among the losses.
// 12: the losses' weights: class weights of cross_entropy and nll_loss, binary_cross_entropy's and
// binary_cross_entropy_with_logits' weight and the latter's pos_weight (loss_steps.h).
inline constexpr int kLatestGeneration = 12;

struct GenerateOptions {
  int max_steps = 16;
  // Elements of the largest tensor a program makes (rarely: most stay far below).
  std::int64_t max_elements = std::int64_t(1) << 20;
  // When set, counts the steps the API refused while generating, by op.
  std::map<std::string, std::int64_t>* refusals = nullptr;
  // Matrix products (and the work around them) make up most steps, and every program has one.
  bool products_only = false;
  int generation = kLatestGeneration;
};

// Records the program as it is built (to learn result dtypes and to skip what the API refuses)
// and discards that recording, so the calling thread's trace is empty afterwards.
Program generate(std::uint64_t seed, std::int64_t index, const GenerateOptions& options);

}  // namespace lazy::fuzz
