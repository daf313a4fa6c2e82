#include "codegen/op_expressions.h"

#include "codegen/text.h"
#include "ir/pointwise_dtypes.h"

namespace lazy::codegen {

namespace {

bool narrow_float(DType d) {
  return d == DType::f16 || d == DType::bf16;
}

std::string round_to(DType d, const std::string& value) {
  if (d == DType::f16) return cat("lz_round_f16(", value, ")");
  if (d == DType::bf16) return cat("lz_round_bf16(", value, ")");
  return value;
}

std::string call(std::string_view function, std::span<const std::string> operands) {
  std::string out = cat(function, "(");
  for (std::size_t i = 0; i < operands.size(); ++i) out += cat(i ? ", " : "", operands[i]);
  return out + ")";
}
std::string call(std::string_view function, const std::string& operand) {
  return call(function, std::span(&operand, 1));
}

}  // namespace

std::string_view value_type(DType dtype) {
  switch (dtype) {
    case DType::i32:
      return "int";
    case DType::i64:
      return "long long";
    case DType::bool_:
      return "bool";
    default:
      return "float";
  }
}

std::string_view storage_type(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return "float";
    case DType::f16:
      return "lz_f16";
    case DType::bf16:
      return "lz_bf16";
    case DType::i32:
      return "int";
    case DType::i64:
      return "long long";
    case DType::bool_:
      return "unsigned char";
  }
  return "float";
}

std::string load_conversion(DType dtype, const std::string& raw) {
  switch (dtype) {
    case DType::f16:
      return call("lz_f16_to_f32", raw);
    case DType::bf16:
      return call("lz_bf16_to_f32", raw);
    case DType::bool_:
      return cat("(", raw, " != 0)");
    default:
      return raw;
  }
}

std::string store_conversion(DType dtype, const std::string& value) {
  switch (dtype) {
    case DType::f16:
      return call("lz_f32_to_f16", value);
    case DType::bf16:
      return call("lz_f32_to_bf16", value);
    case DType::bool_:
      return cat("((unsigned char)", value, ")");
    default:
      return value;
  }
}

std::string convert(DType from, DType to, const std::string& value) {
  if (from == to) return value;
  if (value_type(from) == value_type(to)) {
    // Both floating: only a narrower target changes the value.
    return narrow_float(to) ? round_to(to, value) : value;
  }
  return call(cat("lz_cast_", dtype_name(to)), value);
}

std::string as_stored(DType dtype, const std::string& value) {
  return narrow_float(dtype) ? round_to(dtype, value) : value;
}

std::string operand_as_read(const ir::Node& node, int i, DType from, const std::string& value) {
  const bool jumps =
      !is_floating(node.dtype) || node.op == ir::Op::Floor || node.op == ir::Op::Ceil ||
      node.op == ir::Op::Round || node.op == ir::Op::Trunc || node.op == ir::Op::Sign ||
      node.op == ir::Op::FloorDivide || node.op == ir::Op::Remainder || node.op == ir::Op::Fmod;
  return convert(from, ir::operand_dtype(node, i), jumps ? as_stored(from, value) : value);
}

std::string op_expression(const ir::Node& node, std::span<const std::string> operands,
                          bool fast_math) {
  const ir::OpInfo& info = ir::op_info(node.op);
  std::string function(info.device_function);
  if (info.device_name == ir::DeviceName::per_result_dtype) {
    function += cat("_", dtype_name(node.dtype));
  } else if (info.device_name == ir::DeviceName::fast_math_variant && fast_math &&
             is_floating(node.compute_dtype)) {
    function += "_fast";
  }
  return call(function, operands);
}

}  // namespace lazy::codegen
