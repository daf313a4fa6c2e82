#include "codegen/op_expressions.h"

#include "codegen/text.h"

namespace lazy::codegen {

namespace {

using ir::Op;

bool narrow_float(DType d) {
  return d == DType::f16 || d == DType::bf16;
}

std::string round_to(DType d, const std::string& value) {
  if (d == DType::f16) return cat("lz_round_f16(", value, ")");
  if (d == DType::bf16) return cat("lz_round_bf16(", value, ")");
  return value;
}

std::string call(std::string_view f, const std::string& a) {
  return cat(f, "(", a, ")");
}
std::string call(std::string_view f, const std::string& a, const std::string& b) {
  return cat(f, "(", a, ", ", b, ")");
}
std::string infix(const std::string& a, std::string_view op, const std::string& b) {
  return cat("(", a, " ", op, " ", b, ")");
}

std::string float_op(Op op, std::span<const std::string> x) {
  switch (op) {
    case Op::Neg:
      return cat("(-", x[0], ")");
    case Op::Abs:
      return call("fabsf", x[0]);
    case Op::Sign:
      return call("lz_sign", x[0]);
    case Op::Square:
      return infix(x[0], "*", x[0]);
    case Op::Relu:
      return call("lz_relu", x[0]);
    case Op::Floor:
      return call("floorf", x[0]);
    case Op::Ceil:
      return call("ceilf", x[0]);
    case Op::Round:
      return call("rintf", x[0]);
    case Op::Exp:
      return call("expf", x[0]);
    case Op::Exp2:
      return call("exp2f", x[0]);
    case Op::Log:
      return call("logf", x[0]);
    case Op::Log2:
      return call("log2f", x[0]);
    case Op::Log1p:
      return call("log1pf", x[0]);
    case Op::Expm1:
      return call("expm1f", x[0]);
    case Op::Sqrt:
      return call("sqrtf", x[0]);
    case Op::Rsqrt:
      return call("rsqrtf", x[0]);
    case Op::Sin:
      return call("sinf", x[0]);
    case Op::Cos:
      return call("cosf", x[0]);
    case Op::Tanh:
      return call("lz_tanh", x[0]);
    case Op::Erf:
      return call("erff", x[0]);
    case Op::Sigmoid:
      return call("lz_sigmoid", x[0]);
    case Op::Reciprocal:
      return infix("1.0f", "/", x[0]);
    case Op::Add:
      return infix(x[0], "+", x[1]);
    case Op::Sub:
      return infix(x[0], "-", x[1]);
    case Op::Mul:
      return infix(x[0], "*", x[1]);
    case Op::Div:
      return infix(x[0], "/", x[1]);
    case Op::Pow:
      return call("powf", x[0], x[1]);
    case Op::Maximum:
      return call("lz_maximum", x[0], x[1]);
    case Op::Minimum:
      return call("lz_minimum", x[0], x[1]);
    default:
      return {};
  }
}

// Integer math in long long, wrapping, narrowed to `type` (int for i32).
std::string int_op(Op op, std::span<const std::string> x, std::string_view type) {
  auto narrow = [&](const std::string& e) { return cat("((", type, ")", e, ")"); };
  switch (op) {
    case Op::Neg:
      return narrow(call("lz_wrap_sub", "0LL", x[0]));
    case Op::Abs:
      return cat("(", x[0], " < 0 ? ", narrow(call("lz_wrap_sub", "0LL", x[0])), " : ", x[0], ")");
    case Op::Sign:
      return narrow(cat("((0 < ", x[0], ") - (", x[0], " < 0))"));
    case Op::Square:
      return narrow(call("lz_wrap_mul", x[0], x[0]));
    case Op::Relu:
      return cat("(", x[0], " > 0 ? ", x[0], " : ", narrow("0"), ")");
    case Op::Add:
      return narrow(call("lz_wrap_add", x[0], x[1]));
    case Op::Sub:
      return narrow(call("lz_wrap_sub", x[0], x[1]));
    case Op::Mul:
      return narrow(call("lz_wrap_mul", x[0], x[1]));
    case Op::Pow:
      return narrow(call("lz_ipow", x[0], x[1]));
    case Op::Maximum:
      return cat("(", x[0], " > ", x[1], " ? ", x[0], " : ", x[1], ")");
    case Op::Minimum:
      return cat("(", x[0], " < ", x[1], " ? ", x[0], " : ", x[1], ")");
    default:
      return {};
  }
}

// bool arithmetic is logic: + and maximum are or, * and minimum are and.
std::string bool_op(Op op, std::span<const std::string> x) {
  switch (op) {
    case Op::Add:
    case Op::Maximum:
      return infix(x[0], "||", x[1]);
    case Op::Mul:
    case Op::Minimum:
      return infix(x[0], "&&", x[1]);
    case Op::Sign:
    case Op::Abs:
    case Op::Relu:
      return x[0];
    default:
      return {};
  }
}

std::string_view comparison(Op op) {
  switch (op) {
    case Op::Eq:
      return "==";
    case Op::Ne:
      return "!=";
    case Op::Lt:
      return "<";
    case Op::Le:
      return "<=";
    case Op::Gt:
      return ">";
    case Op::Ge:
      return ">=";
    default:
      return {};
  }
}

std::string truth(DType dtype, const std::string& value) {
  return dtype == DType::bool_ ? value : cat("(", value, " != 0)");
}

std::string cast(DType from, DType to, const std::string& x) {
  if (to == DType::bool_) return truth(from, x);
  if (is_floating(to)) {
    if (is_floating(from)) return round_to(to, x);
    // f32 holds every f16 integer below f16's overflow, but not every integer bf16 rounds.
    if (to == DType::bf16 && from != DType::bool_) return call("lz_int_to_bf16", x);
    return round_to(to, cat("((float)", x, ")"));
  }
  std::string_view type = value_type(to);
  if (is_floating(from)) return call(to == DType::i32 ? "lz_f32_to_i32" : "lz_f32_to_i64", x);
  return cat("((", type, ")", x, ")");
}

}  // namespace

bool is_transcendental(Op op) {
  switch (op) {
    case Op::Exp:
    case Op::Exp2:
    case Op::Log:
    case Op::Log2:
    case Op::Log1p:
    case Op::Expm1:
    case Op::Sin:
    case Op::Cos:
    case Op::Tanh:
    case Op::Erf:
    case Op::Sigmoid:
    case Op::Pow:
    case Op::RandNormal:
      return true;
    default:
      return false;
  }
}

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
  return cast(from, to, value);
}

DType operand_dtype(const ir::Node& node, int i) {
  const ir::Node& input = *node.inputs[i];
  switch (node.op) {
    case Op::LogicalNot:
    case Op::LogicalAnd:
    case Op::LogicalOr:
    case Op::IsNan:
    case Op::IsInf:
    case Op::Cast:
      return input.dtype;
    case Op::Where:
      if (i == 0) return DType::bool_;
      break;
    default:
      break;
  }
  return input.is_number() ? input.dtype : node.compute_dtype;
}

std::string op_expression(const ir::Node& node, std::span<const std::string> x, bool fast_math) {
  const Op op = node.op;
  const DType compute = node.compute_dtype;
  switch (op) {
    case Op::LogicalNot:
      return cat("(!", truth(node.inputs[0]->dtype, x[0]), ")");
    case Op::LogicalAnd:
      return infix(truth(node.inputs[0]->dtype, x[0]), "&&", truth(node.inputs[1]->dtype, x[1]));
    case Op::LogicalOr:
      return infix(truth(node.inputs[0]->dtype, x[0]), "||", truth(node.inputs[1]->dtype, x[1]));
    case Op::IsNan:
      return is_floating(node.inputs[0]->dtype) ? infix(x[0], "!=", x[0]) : "false";
    case Op::IsInf:
      return is_floating(node.inputs[0]->dtype) ? call("isinf", x[0]) : "false";
    case Op::Cast:
      return cast(node.inputs[0]->dtype, node.dtype, x[0]);
    case Op::Where:
      return cat("(", x[0], " ? ", x[1], " : ", x[2], ")");
    default:
      break;
  }
  if (std::string_view cmp = comparison(op); !cmp.empty()) return infix(x[0], cmp, x[1]);
  if (fast_math && op == Op::Tanh && is_floating(compute)) return call("lz_tanh_fast", x[0]);
  if (fast_math && op == Op::Sigmoid && is_floating(compute)) return call("lz_sigmoid_fast", x[0]);
  if (is_floating(compute)) return float_op(op, x);
  if (compute == DType::bool_) return bool_op(op, x);
  return int_op(op, x, value_type(compute));
}

std::string generator_expression(const ir::Node& node, std::span<const std::string> x,
                                 const std::string& index) {
  switch (node.op) {
    case Op::Arange:
      if (is_floating(node.dtype)) {
        // In double, like the host evaluator: start + i * step rounds once.
        const std::string value =
            cat("((double)", x[0], " + (double)(", index, ") * (double)", x[1], ")");
        if (narrow_float(node.dtype)) return round_to(node.dtype, call("lz_f64_to_f32_odd", value));
        return cat("((float)", value, ")");
      }
      return cat("((", value_type(node.dtype), ")lz_wrap_add(", x[0], ", lz_wrap_mul((long long)(",
                 index, "), ", x[1], ")))");
    case Op::RandUniform: {
      int bits = node.dtype == DType::f32 ? 24 : node.dtype == DType::f16 ? 11 : 8;
      return cat("lz_rand_uniform((unsigned long long)", x[0], ", (unsigned long long)(", index,
                 "), ", bits, ")");
    }
    case Op::RandNormal:
      return cat("lz_rand_normal((unsigned long long)", x[0], ", (unsigned long long)(", index,
                 "))");
    default:
      return {};
  }
}

}  // namespace lazy::codegen
