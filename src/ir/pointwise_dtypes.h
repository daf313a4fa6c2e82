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
  // What a number operand is recorded as: the compared dtype for comparisons (an f16 tensor
  // holding f16(0.1) equals 0.1, as in PyTorch), the compute precision otherwise.
  DType number;
  // A comparison: a number may round to infinity in the compared dtype (not an error).
  bool compares;
};
// The result, compute and number dtypes of an op whose rule is not `given`, from the promoted
// dtype of its operands.
PointwiseDTypes pointwise_dtypes(Op op, DType promoted);

}  // namespace lazy::ir
