// The generator's matrix product steps: matmul in all its forms (2-D, batched with broadcast batch
// axes, a 1-D operand on either side, a dot product), bmm, linear with and without a bias, addmm,
// and einsum of one to three operands (sums, diagonals, pointwise pairs and chains among them);
// operands of one floating dtype, among them views
// (transposes, slices, expanded batch axes) so that the operands' layouts vary; and after a
// product now and then the work its cuBLASLt epilogue folds (a bias, a residual, relu,
// gelu_tanh) or a normalization of its rows.
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

// Appends a product (and the steps that make its operands) reading step `x` where its shape
// allows, else fresh leaves. Adds nothing when a needed step is refused.
void add_product(GrowingProgram& program, int x);

}  // namespace lazy::fuzz
