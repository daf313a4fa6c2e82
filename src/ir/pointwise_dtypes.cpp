#include "ir/pointwise_dtypes.h"

#include "ir/type_promotion.h"

namespace lazy::ir {

DType operand_dtype(const Node& node, int i) {
  const Node& input = *node.inputs[std::size_t(i)];
  switch (op_info(node.op).operands) {
    case OperandRule::own:
      return input.dtype;
    case OperandRule::truth:
      return DType::bool_;
    case OperandRule::condition:
      if (i == 0) return DType::bool_;
      break;
    case OperandRule::compute:
      break;
  }
  return input.is_number() ? input.dtype : node.compute_dtype;
}

PointwiseDTypes pointwise_dtypes(Op op, DType promoted) {
  const OpInfo& info = op_info(op);
  DType result = promoted, compute = promoted;
  if (info.dtype_rule == DTypeRule::promoted_floating && !is_floating(promoted)) {
    result = compute = DType::f32;
  } else if (info.dtype_rule == DTypeRule::to_bool) {
    result = DType::bool_;
  }
  const bool comparison =
      info.dtype_rule == DTypeRule::to_bool && info.operands == OperandRule::compute;
  return {result, compute, comparison ? compute : compute_type_of(compute), comparison};
}

}  // namespace lazy::ir
