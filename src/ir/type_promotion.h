// PyTorch's type promotion (torch.result_type), documented in docs/semantics.md.
#pragma once

#include <optional>
#include <span>

#include "lazy/dtype.h"
#include "lazy/scalar.h"

namespace lazy::ir {

// One operand as promotion sees it: a tensor with dims, a 0-d tensor, or a number.
struct PromotionOperand {
  enum class Tier { dimensioned, zero_dim, scalar };
  Tier tier;
  DType dtype;  // for a number: f32 for a float, i64 for an integer, bool for a bool
};

PromotionOperand promotion_operand_of_scalar(const Scalar& scalar);

// The type two dtypes promote to when they meet as equals: bool < integers < floats, wider
// wins, and f16 with bf16 gives f32.
DType promote_types(DType a, DType b);

// The result dtype of a pointwise op over these operands. A higher category from a lower tier
// wins over dimensioned tensors, but only the category: a float number with a bf16 tensor stays
// bf16, with an i32 tensor gives f32.
DType result_type(std::span<const PromotionOperand> operands);

// The dtype arithmetic is carried out in: f32 for f16 and bf16, the dtype itself otherwise.
constexpr DType compute_type_of(DType d) {
  return (d == DType::f16 || d == DType::bf16) ? DType::f32 : d;
}

}  // namespace lazy::ir
