#include "ir/pointwise_dtypes.h"

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

PointwiseDTypes pointwise_dtypes(DTypeRule rule, DType promoted) {
  switch (rule) {
    case DTypeRule::promoted_floating: {
      const DType floating = is_floating(promoted) ? promoted : DType::f32;
      return {floating, floating};
    }
    case DTypeRule::to_bool:
      return {DType::bool_, promoted};
    case DTypeRule::promoted:
    case DTypeRule::given:
      break;
  }
  return {promoted, promoted};
}

}  // namespace lazy::ir
