// Shared by the losses' files: how they fold their per-element values (lazy::Reduction), and
// the dtype check of those that take two values to compare.
#pragma once

#include <source_location>
#include <string_view>
#include <utility>

#include "lazy/losses.h"

namespace lazy::api {

// The mean divides by `divisor` (the weights taken) where one is given, else by the count; f16
// and bf16 sums and the division are carried out in f32 and rounded once, as PyTorch's kernels.
// batchmean is a ValueError naming `name` (kl_div, its one taker, reduces it itself).
Tensor reduce_loss(const Tensor& losses, Reduction reduction, const Tensor& divisor,
                   std::string_view name, std::source_location loc);

// DTypeError naming `name` unless the input or the target is floating (mse_loss, l1_loss, ...).
void require_a_floating_operand(const Tensor& input, const Tensor& target, std::string_view name,
                                std::source_location loc);

// Input and target expanded to their common shape, as PyTorch's regression losses broadcast them
// first (so a 0-d one promotes as a dimensioned tensor would).
std::pair<Tensor, Tensor> broadcast_pair(const Tensor& input, const Tensor& target,
                                         std::string_view name, std::source_location loc);

}  // namespace lazy::api
