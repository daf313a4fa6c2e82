// How the losses fold their per-element values (lazy::Reduction), shared by their files.
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

}  // namespace lazy::api
