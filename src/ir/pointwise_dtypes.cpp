#include "ir/pointwise_dtypes.h"

#include <array>
#include <cstddef>

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

namespace {

#define LAZY_OP_ONE(...) +1
constexpr std::size_t kOps = 0 LAZY_FOR_EACH_OP(LAZY_OP_ONE);
#undef LAZY_OP_ONE
constexpr std::size_t kDTypes = std::size_t(DType::bool_) + 1;

bool takes_promoted(DTypeRule rule, DType promoted) {
  switch (rule) {
    case DTypeRule::promoted_integral:
      return !is_floating(promoted);
    case DTypeRule::promoted_integer:
      return is_integer(promoted);
    default:
      return true;
  }
}

PointwiseDTypes derive_pointwise_dtypes(Op op, DType promoted) {
  const OpInfo& info = op_info(op);
  DType result = promoted, compute = promoted;
  if (info.dtype_rule == DTypeRule::promoted_floating && !is_floating(promoted)) {
    result = compute = DType::f32;
  } else if (info.dtype_rule == DTypeRule::to_bool) {
    result = DType::bool_;
  }
  const bool rounds_number =
      (info.dtype_rule == DTypeRule::to_bool && info.operands == OperandRule::compute) ||
      info.dtype_rule == DTypeRule::promoted_rounding;
  const bool reads_bits = info.dtype_rule == DTypeRule::promoted_integral ||
                          info.dtype_rule == DTypeRule::promoted_integer;
  return {result,
          compute,
          rounds_number ? compute : compute_type_of(compute),
          rounds_number,
          takes_promoted(info.dtype_rule, promoted),
          reads_bits};
}

}  // namespace

PointwiseDTypes pointwise_dtypes(Op op, DType promoted) {
  // Every recorded op asks: a table, made once, spares it the rules' branches.
  using Table = std::array<std::array<PointwiseDTypes, kDTypes>, kOps>;
  static const Table table = [] {
    Table rows{};
    for (std::size_t op = 0; op < kOps; ++op)
      for (std::size_t dtype = 0; dtype < kDTypes; ++dtype)
        rows[op][dtype] = derive_pointwise_dtypes(Op(op), DType(dtype));
    return rows;
  }();
  return table[std::size_t(op)][std::size_t(promoted)];
}

}  // namespace lazy::ir
