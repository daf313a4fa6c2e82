// What the matrix-product functions of lazy/linalg.h share: their dtype rule, their shape rules
// and the MatMul node itself (ir/matmul.h). The API records the bare product; views around it
// (promotions, broadcasts, transposes) and ordinary ops after it (bias, scaling) are the
// partitioner's to fold into the library call.
#pragma once

#include <source_location>
#include <string_view>

#include "lazy/tensor.h"

namespace lazy::api {

// Whether f32 products recorded now may use TF32 tensor cores (lazy::set_matmul_precision).
bool matmul_tf32();

// Throws DTypeError unless both dtypes are the same floating dtype.
void require_matmul_dtypes(DType a, DType b, std::string_view op, std::source_location loc);

// Throws ShapeError, naming both shapes, unless `operand` broadcasts to `result` without growing
// it (a bias or an added matrix); `what` names the operand.
void require_broadcasts_to(const Shape& operand, const Shape& result, std::string_view what,
                           std::string_view op, std::source_location loc);

// The shapes of torch.matmul's operands once promoted to matrices and broadcast, [batch..., M, K]
// and [batch..., K, N], and of its result ([batch..., M, N] without the axes a 1-D operand
// gained). Throws ShapeError naming both shapes where they do not multiply.
struct ProductShapes {
  Shape left, right, result;
};
ProductShapes product_shapes(const Shape& a, const Shape& b, std::string_view op,
                             std::source_location loc);

// torch.matmul, with errors naming `op`: the checks, then views and one MatMul node.
Tensor matmul_as(const Tensor& a, const Tensor& b, std::string_view op, std::source_location loc);

// Records one MatMul node of a [batch..., M, K] and b [batch..., K, N], whose dtypes and shapes
// the caller has checked.
Tensor record_product(const Tensor& a, const Tensor& b, std::source_location loc);

}  // namespace lazy::api
