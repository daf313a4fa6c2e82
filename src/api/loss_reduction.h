// Shared by the losses' files: how they fold their per-element values (lazy::Reduction), and
// the dtype check of those that take two values to compare.
#pragma once

#include <source_location>
#include <string_view>

#include "lazy/losses.h"

namespace lazy::api {

// The mean divides by `divisor` (the weights taken) where one is given, else by the count; f16
// and bf16 sums and the division are carried out in f32 and rounded once, as PyTorch's kernels.
// batchmean (kl_div's only: another loss named `name` refuses it) divides the sum by the first
// axis' size, 1 for a 0-d loss.
Tensor reduce_loss(const Tensor& losses, Reduction reduction, const Tensor& divisor,
                   std::string_view name, std::source_location loc);

// DTypeError naming `name` unless the input or the target is floating (mse_loss, l1_loss, ...).
void require_a_floating_operand(const Tensor& input, const Tensor& target, std::string_view name,
                                std::source_location loc);

}  // namespace lazy::api
