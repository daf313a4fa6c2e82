// The textbook gradients of the composites that mark their result (api/composite_marks.h).
#pragma once

#include <source_location>

#include "api/composite_marks.h"
#include "lazy/tensor.h"

namespace lazy::autodiff {

// The cotangent of mark.input, given the marked result and its cotangent (both f32).
Tensor composite_vjp(const api::CompositeMark& mark, const Tensor& result, const Tensor& cotangent,
                     std::source_location loc);
// The cotangent of mark.second, for the marks that have one.
Tensor composite_vjp_of_second(const api::CompositeMark& mark, const Tensor& cotangent,
                               std::source_location loc);
// The cotangent of mark.third, for the marks that have one.
Tensor composite_vjp_of_third(const api::CompositeMark& mark, const Tensor& cotangent,
                              std::source_location loc);

}  // namespace lazy::autodiff
