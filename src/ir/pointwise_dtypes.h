// The dtypes around a pointwise op, from its row of the op table: what it reads each operand as
// (codegen and the reference evaluator alike), and what it computes in and returns.
#pragma once

#include "ir/node.h"

namespace lazy::ir {

// The dtype `node` reads operand i as (OperandRule): numbers keep their own dtype, tensors take
// the op's compute dtype; logical ops read truth values; casts, classification and generators
// read operands as they are.
DType operand_dtype(const Node& node, int i);

struct PointwiseDTypes {
  DType result;
  DType compute;
  // What a number operand is recorded as: the promoted dtype where PyTorch rounds it to that
  // first (comparisons: an f16 tensor holding f16(0.1) equals 0.1; pow, remainder and fmod),
  // the compute precision otherwise (`x * 1.2` on bf16 multiplies by 1.2f).
  DType number;
  // The number is rounded to the promoted dtype, and may round to infinity there (not an error).
  bool rounds_number;
  // Whether the op's dtype rule takes operands that promote to this dtype: bitwise ops refuse
  // floating dtypes, shifts bool too. Every other rule takes every dtype.
  bool accepted;
  // The op reads integer operands as bits (bitwise ops and shifts, whose rules refuse floating
  // dtypes).
  bool reads_bits;
};
// The result, compute and number dtypes of an op whose rule is not `given`, from the promoted
// dtype of its operands.
PointwiseDTypes pointwise_dtypes(Op op, DType promoted);

}  // namespace lazy::ir
