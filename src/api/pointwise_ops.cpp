// Pointwise ops: dtype rules, broadcasting, and the composites built from them.
#include <cmath>
#include <numbers>
#include <optional>

#include "api/broadcast.h"
#include "api/composite_marks.h"
#include "api/composites.h"
#include "api/recording.h"
#include "ir/dtype_codec.h"
#include "ir/pointwise_dtypes.h"
#include "ir/type_promotion.h"
#include "lazy/autodiff.h"
#include "lazy/ops.h"

namespace lazy {

namespace {

using ir::Op;

using api::promotion_operand;

// Records a pointwise node over the operands: numbers become Scalar leaves of `scalar_dtype`,
// tensors are broadcast to the common shape. Numbers must fit scalar_dtype as `use` has it.
Tensor pointwise(Op op, std::string_view name, std::initializer_list<const Operand*> operands,
                 DType dtype, DType compute_dtype, DType scalar_dtype, std::source_location loc,
                 api::NumberUse use = api::NumberUse::exact) {
  std::array<const Shape*, 3> shapes{};
  int n_shapes = 0;
  bool same_shapes = true;
  for (const Operand* x : operands) {
    if (x->is_tensor()) {
      shapes[n_shapes] = &api::node_of(x->tensor(), name, loc)->shape;
      same_shapes = same_shapes && *shapes[n_shapes] == *shapes[0];
      ++n_shapes;
    } else {
      api::check_scalar_fits(x->scalar(), scalar_dtype, name, loc, use);
    }
  }
  const Shape* shape = shapes[0];
  std::optional<Shape> broadcast;  // not made when the shapes agree, as they nearly always do
  if (!same_shapes) {
    std::array<Shape, 3> copies;
    for (int i = 0; i < n_shapes; ++i) copies[i] = *shapes[i];
    broadcast = api::broadcast_shapes({copies.data(), std::size_t(n_shapes)}, name, loc);
    shape = &*broadcast;
  }

  ir::NodePtr node = ir::make_node(op, dtype, *shape, loc);
  node->compute_dtype = compute_dtype;
  for (const Operand* x : operands) {
    if (x->is_tensor()) {
      ir::Node* input = x->tensor().node();
      node->inputs.push_back(same_shapes ? input : api::broadcast_node(input, *shape, loc));
    } else {
      node->inputs.push_back(
          api::scalar_node(x->scalar(), scalar_dtype, ir::ScalarRole::number, loc));
    }
  }
  return api::record(std::move(node));
}

void require_a_tensor(const Operand& a, const Operand& b, std::string_view name,
                      std::source_location loc) {
  if (!a.is_tensor() && !b.is_tensor()) {
    api::fail<ValueError>(loc, name, "needs at least one tensor operand, got two numbers");
  }
}

// The promoted dtype of a binary op's operands, PyTorch's result_type. Two tensors of one dtype,
// or a tensor with a number of no higher category, give the tensor's dtype without the general
// rules: the cases nearly every recorded op is.
DType binary_result_type(const Operand& a, const Operand& b, std::string_view name,
                         std::source_location loc) {
  const Operand& tensor = a.is_tensor() ? a : b;
  const Operand& other = a.is_tensor() ? b : a;
  const DType dtype = api::node_of(tensor.tensor(), name, loc)->dtype;
  if (other.is_tensor()) {
    if (api::node_of(other.tensor(), name, loc)->dtype == dtype) return dtype;
  } else if (is_floating(dtype) ||
             (is_integer(dtype) && other.scalar().kind() != Scalar::Kind::floating)) {
    return dtype;
  }
  std::array operands = {promotion_operand(a, name, loc), promotion_operand(b, name, loc)};
  return ir::result_type(operands);
}

// Bitwise ops refuse floating operands, shifts bool ones too (their rows' dtype rules).
void check_accepted(Op op, const ir::PointwiseDTypes& dtypes, std::string_view name, DType promoted,
                    std::source_location loc) {
  if (dtypes.accepted) return;
  const bool bits_of_bool = ir::op_info(op).dtype_rule == ir::DTypeRule::promoted_integral;
  api::fail<DTypeError>(loc, name, "takes ", bits_of_bool ? "integer or bool" : "integer",
                        " operands, and these promote to ", dtype_name(promoted),
                        is_floating(promoted)
                            ? "; cast floating tensors to an integer dtype and pass whole numbers"
                            : "; cast them to an integer dtype first");
}

// A binary op's dtypes come from its row of the op table (ir/op.h).
Tensor binary(Op op, std::string_view name, const Operand& a, const Operand& b,
              std::source_location loc) {
  api::sync_if_trace_full();
  require_a_tensor(a, b, name, loc);
  const DType promoted = binary_result_type(a, b, name, loc);
  const ir::PointwiseDTypes dtypes = ir::pointwise_dtypes(op, promoted);
  check_accepted(op, dtypes, name, promoted, loc);
  if (op == Op::Sub && promoted == DType::bool_) {
    api::fail<DTypeError>(loc, name,
                          "subtracting bool tensors is not supported; use ne(a, b) (their xor) "
                          "or cast to an integer dtype first");
  }
  if ((op == Op::Remainder || op == Op::Fmod || op == Op::FloorDivide) &&
      promoted == DType::bool_) {
    api::fail<DTypeError>(loc, name, "dividing bool tensors is not supported; cast them first");
  }
  if (op == Op::Pow && promoted == DType::bool_) {
    api::fail<DTypeError>(loc, name, "pow of bool operands is not supported; cast them first");
  }
  if (op == Op::Pow && is_integer(promoted) && !b.is_tensor() && b.scalar().fits_int64() &&
      b.scalar().to_int() < 0) {
    api::fail<ValueError>(loc, name, "integers to negative integer powers are not allowed");
  }
  // A compared (or otherwise rounded) number rounding to infinity is not an error, as PyTorch's
  // wrapped numbers; an integer that does not fit is, and so is pow's exponent (PyTorch converts
  // it checked).
  const bool exponent_number = op == Op::Pow && !b.is_tensor();
  // Converted checked, as PyTorch's: 65519 is refused for f16 though it rounds to 65504.
  if (exponent_number) api::check_fill_fits(b.scalar(), promoted, name, loc);
  api::NumberUse use = api::NumberUse::exact;
  if (dtypes.rounds_number && !exponent_number) use = api::NumberUse::rounded;
  if (dtypes.reads_bits) use = api::NumberUse::bits;
  return pointwise(op, name, {&a, &b}, dtypes.result, dtypes.compute, dtypes.number, loc, use);
}

// A unary op's dtypes come from its row of the op table (ir/op.h).
Tensor unary(Op op, std::string_view name, const Tensor& x, std::source_location loc) {
  api::sync_if_trace_full();
  const DType dtype = api::node_of(x, name, loc)->dtype;
  const ir::PointwiseDTypes dtypes = ir::pointwise_dtypes(op, dtype);
  check_accepted(op, dtypes, name, dtype, loc);
  Operand operand(x, loc);
  return pointwise(op, name, {&operand}, dtypes.result, dtypes.compute, dtypes.result, loc);
}

void reject_bool(const Tensor& x, std::string_view name, std::source_location loc) {
  if (api::node_of(x, name, loc)->dtype == DType::bool_) {
    api::fail<DTypeError>(loc, name,
                          "is not defined for bool tensors; cast to a numeric dtype first");
  }
}

}  // namespace

#define LAZY_DEFINE_BINARY(name, op)                                          \
  Tensor name(const Operand& a, const Operand& b, std::source_location loc) { \
    return binary(Op::op, #name, a, b, loc);                                  \
  }
LAZY_DEFINE_BINARY(add, Add)
LAZY_DEFINE_BINARY(sub, Sub)
LAZY_DEFINE_BINARY(mul, Mul)
LAZY_DEFINE_BINARY(div, Div)
LAZY_DEFINE_BINARY(pow, Pow)
LAZY_DEFINE_BINARY(maximum, Maximum)
LAZY_DEFINE_BINARY(minimum, Minimum)
LAZY_DEFINE_BINARY(floor_divide, FloorDivide)
LAZY_DEFINE_BINARY(remainder, Remainder)
LAZY_DEFINE_BINARY(fmod, Fmod)
LAZY_DEFINE_BINARY(atan2, Atan2)
LAZY_DEFINE_BINARY(hypot, Hypot)
LAZY_DEFINE_BINARY(logaddexp, LogAddExp)
LAZY_DEFINE_BINARY(eq, Eq)
LAZY_DEFINE_BINARY(ne, Ne)
LAZY_DEFINE_BINARY(lt, Lt)
LAZY_DEFINE_BINARY(le, Le)
LAZY_DEFINE_BINARY(gt, Gt)
LAZY_DEFINE_BINARY(ge, Ge)
LAZY_DEFINE_BINARY(logical_and, LogicalAnd)
LAZY_DEFINE_BINARY(logical_or, LogicalOr)
LAZY_DEFINE_BINARY(logical_xor, LogicalXor)
LAZY_DEFINE_BINARY(bitwise_and, BitwiseAnd)
LAZY_DEFINE_BINARY(bitwise_or, BitwiseOr)
LAZY_DEFINE_BINARY(bitwise_xor, BitwiseXor)
LAZY_DEFINE_BINARY(bitwise_left_shift, BitwiseLeftShift)
LAZY_DEFINE_BINARY(bitwise_right_shift, BitwiseRightShift)
#undef LAZY_DEFINE_BINARY

#define LAZY_DEFINE_UNARY(name, op)                        \
  Tensor name(const Tensor& x, std::source_location loc) { \
    return unary(Op::op, #name, x, loc);                   \
  }
LAZY_DEFINE_UNARY(sign, Sign)
LAZY_DEFINE_UNARY(exp, Exp)
LAZY_DEFINE_UNARY(exp2, Exp2)
LAZY_DEFINE_UNARY(log, Log)
LAZY_DEFINE_UNARY(log2, Log2)
LAZY_DEFINE_UNARY(log1p, Log1p)
LAZY_DEFINE_UNARY(expm1, Expm1)
LAZY_DEFINE_UNARY(sqrt, Sqrt)
LAZY_DEFINE_UNARY(rsqrt, Rsqrt)
LAZY_DEFINE_UNARY(sin, Sin)
LAZY_DEFINE_UNARY(cos, Cos)
LAZY_DEFINE_UNARY(tanh, Tanh)
LAZY_DEFINE_UNARY(erf, Erf)
LAZY_DEFINE_UNARY(tan, Tan)
LAZY_DEFINE_UNARY(asin, Asin)
LAZY_DEFINE_UNARY(acos, Acos)
LAZY_DEFINE_UNARY(atan, Atan)
LAZY_DEFINE_UNARY(sinh, Sinh)
LAZY_DEFINE_UNARY(cosh, Cosh)
LAZY_DEFINE_UNARY(asinh, Asinh)
LAZY_DEFINE_UNARY(acosh, Acosh)
LAZY_DEFINE_UNARY(atanh, Atanh)
LAZY_DEFINE_UNARY(log10, Log10)
LAZY_DEFINE_UNARY(sigmoid, Sigmoid)
LAZY_DEFINE_UNARY(reciprocal, Reciprocal)
LAZY_DEFINE_UNARY(logical_not, LogicalNot)
LAZY_DEFINE_UNARY(isnan, IsNan)
LAZY_DEFINE_UNARY(isinf, IsInf)
LAZY_DEFINE_UNARY(isfinite, IsFinite)
#undef LAZY_DEFINE_UNARY

Tensor neg(const Tensor& x, std::source_location loc) {
  reject_bool(x, "neg", loc);
  return unary(Op::Neg, "neg", x, loc);
}

Tensor operator-(const Operand& x) {
  // An Operand holding a number (lazy::Operand o = 2.0; -o) has no tensor to negate.
  if (!x.is_tensor()) {
    api::fail<ValueError>(x.loc(), "neg", "needs a tensor; negate the number itself instead");
  }
  return neg(x.tensor(), x.loc());
}

// Of bool, logical_not (PyTorch's ~ of a bool tensor): the row itself takes integers only.
Tensor bitwise_not(const Tensor& x, std::source_location loc) {
  const DType dtype = api::node_of(x, "bitwise_not", loc)->dtype;
  if (dtype == DType::bool_) return logical_not(x, loc);
  if (is_floating(dtype)) {
    api::fail<DTypeError>(loc, "bitwise_not", "takes integer or bool tensors, got ",
                          dtype_name(dtype), "; cast to an integer dtype first");
  }
  return unary(Op::BitwiseNot, "bitwise_not", x, loc);
}

Tensor operator~(const Operand& x) {
  if (!x.is_tensor()) {
    api::fail<ValueError>(x.loc(), "bitwise_not", "needs a tensor; invert the number itself");
  }
  return bitwise_not(x.tensor(), x.loc());
}

Tensor abs(const Tensor& x, std::source_location loc) {
  reject_bool(x, "abs", loc);
  return unary(Op::Abs, "abs", x, loc);
}

Tensor relu(const Tensor& x, std::source_location loc) {
  reject_bool(x, "relu", loc);
  return unary(Op::Relu, "relu", x, loc);
}

// bool squares to i64, as x ** 2 with an integer exponent does in PyTorch.
Tensor square(const Tensor& x, std::source_location loc) {
  if (api::node_of(x, "square", loc)->dtype == DType::bool_) {
    return unary(Op::Square, "square", cast(x, DType::i64, loc), loc);
  }
  return unary(Op::Square, "square", x, loc);
}

// Rounding an integer is the identity: the same tensor comes back, nothing is recorded.
#define LAZY_DEFINE_ROUNDING(name, op)                     \
  Tensor name(const Tensor& x, std::source_location loc) { \
    reject_bool(x, #name, loc);                            \
    if (is_integer(x.dtype())) return x;                   \
    return unary(Op::op, #name, x, loc);                   \
  }
LAZY_DEFINE_ROUNDING(floor, Floor)
LAZY_DEFINE_ROUNDING(ceil, Ceil)
LAZY_DEFINE_ROUNDING(round, Round)
LAZY_DEFINE_ROUNDING(trunc, Trunc)
#undef LAZY_DEFINE_ROUNDING

Tensor cast(const Tensor& x, DType dtype, std::source_location loc) {
  api::sync_if_trace_full();
  if (api::node_of(x, "cast", loc)->dtype == dtype) return x;
  Operand operand(x, loc);
  return pointwise(Op::Cast, "cast", {&operand}, dtype, dtype, dtype, loc);
}

Tensor where(const Tensor& cond, const Operand& a, const Operand& b, std::source_location loc) {
  api::sync_if_trace_full();
  DType cond_dtype = api::node_of(cond, "where", loc)->dtype;
  if (cond_dtype != DType::bool_) {
    api::fail<DTypeError>(loc, "where", "needs a bool condition, got ", dtype_name(cond_dtype),
                          "; compare it (x != 0) first");
  }
  std::array operands = {promotion_operand(a, "where", loc), promotion_operand(b, "where", loc)};
  DType dtype = ir::result_type(operands);
  // A number is converted checked, as PyTorch's CUDA where: past the dtype's largest is an error.
  for (const Operand* x : {&a, &b})
    if (!x->is_tensor()) api::check_fill_fits(x->scalar(), dtype, "where", loc);
  Operand c(cond, loc);
  return pointwise(Op::Where, "where", {&c, &a, &b}, dtype, dtype, ir::compute_type_of(dtype), loc);
}

Tensor lerp(const Tensor& start, const Operand& end, const Operand& weight,
            std::source_location loc) {
  api::sync_if_trace_full();
  const Operand s(start, loc);
  std::array operands = {promotion_operand(s, "lerp", loc), promotion_operand(end, "lerp", loc),
                         promotion_operand(weight, "lerp", loc)};
  const DType dtype = ir::result_type(operands);
  // PyTorch refuses integer start and end even with a floating weight; so do we.
  for (const Operand* x : {&s, &end}) {
    if (!x->is_tensor()) continue;
    const DType given = api::node_of(x->tensor(), "lerp", loc)->dtype;
    if (!is_floating(given)) {
      api::fail<DTypeError>(loc, "lerp", "needs floating-point start and end, got ",
                            dtype_name(given), "; cast them to a floating dtype first");
    }
  }
  return pointwise(Op::Lerp, "lerp", {&s, &end, &weight}, dtype, dtype, ir::compute_type_of(dtype),
                   loc);
}

Tensor clamp(const Tensor& given, const Operand& given_lo, const Operand& given_hi,
             std::source_location loc) {
  api::sync_if_trace_full();
  // One result type over the three, as torch.clamp: promoting pair by pair is not associative
  // (i32 between f16 and f32 0-d bounds would be f16).
  std::array operands = {promotion_operand(Operand(given, loc), "clamp", loc),
                         promotion_operand(given_lo, "clamp", loc),
                         promotion_operand(given_hi, "clamp", loc)};
  const DType dtype = ir::result_type(operands);
  if (dtype == DType::bool_) {
    api::fail<DTypeError>(loc, "clamp",
                          "x and its bounds are bool, which PyTorch does not clamp either; cast x "
                          "with .to(lazy::i32) first");
  }
  // Checked here, so that an error names clamp rather than the maximum and minimum it is made of.
  std::vector<Shape> shapes{given.shape(loc)};
  for (const Operand* bound : {&given_lo, &given_hi}) {
    if (bound->is_tensor()) {
      shapes.push_back(bound->tensor().shape(loc));
    } else {
      api::check_scalar_fits(bound->scalar(), ir::compute_type_of(dtype), "clamp", loc);
    }
  }
  api::broadcast_shapes(shapes, "clamp", loc);
  const Tensor x = given.to(dtype, loc);
  const Tensor lo_tensor = given_lo.is_tensor() ? given_lo.tensor().to(dtype, loc) : Tensor();
  const Tensor hi_tensor = given_hi.is_tensor() ? given_hi.tensor().to(dtype, loc) : Tensor();
  const Operand lo = given_lo.is_tensor() ? Operand(lo_tensor, loc) : given_lo;
  const Operand hi = given_hi.is_tensor() ? Operand(hi_tensor, loc) : given_hi;
  // The value is min(max(x, lo), hi), picked so that the gradient goes where PyTorch's clamp
  // sends it: to x inside [lo, hi], ends included; to lo where x < lo < hi; to hi where x > hi or
  // hi < lo; nowhere else (a NaN, or x below lo == hi).
  const Tensor bounded = minimum(maximum(x, lo, loc), hi, loc);
  const Tensor inside = logical_and(ge(x, lo, loc), le(x, hi, loc), loc);
  const Tensor held = stop_gradient(bounded, loc);
  // Inside, the value is the bound's zero where x is a zero of the other sign (clamp(-0.0, 0, 1)
  // is +0, as PyTorch's), with x's gradient: held - (x - x) is held exactly for a finite x.
  const Tensor kept =
      is_floating(dtype)
          ? where(eq(x, 0, loc), sub(held, sub(stop_gradient(x, loc), x, loc), loc), x, loc)
          : x;
  if (!lo.is_tensor() && !hi.is_tensor()) return where(inside, kept, held, loc);
  const Tensor below = logical_and(lt(x, lo, loc), lt(lo, hi, loc), loc);
  const Tensor above = logical_or(gt(x, hi, loc), lt(hi, lo, loc), loc);
  // Above hi, a NaN in x or lo still gives NaN, and hi its gradient.
  const Tensor at_hi = where(isnan(bounded, loc), add(hi, held, loc), hi, loc);
  return where(inside, kept, where(below, lo, where(above, at_hi, held, loc), loc), loc);
}

Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf,
                  std::optional<double> neginf, std::source_location loc) {
  const DType dtype = api::node_of(x, "nan_to_num", loc)->dtype;
  if (!is_floating(dtype)) return x;
  const double largest = ir::largest_finite(dtype);
  const auto in_dtype = [&](double value) { return ir::round_to_dtype(value, dtype); };
  const Tensor without_nan = where(isnan(x, loc), in_dtype(nan), x, loc);
  const Tensor without_inf =
      where(eq(x, INFINITY, loc), in_dtype(posinf.value_or(largest)), without_nan, loc);
  return where(eq(x, -INFINITY, loc), in_dtype(neginf.value_or(-largest)), without_inf, loc);
}

Tensor gelu(const Tensor& x, std::source_location loc) {
  api::require_floating(x, "gelu", loc);
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    Tensor phi = add(mul(erf(mul(v, std::numbers::sqrt2 / 2, loc), loc), 0.5, loc), 0.5, loc);
    return mul(v, phi, loc);
  });
}

namespace api {

ir::PromotionOperand promotion_operand(const Operand& x, std::string_view name,
                                       std::source_location loc) {
  if (!x.is_tensor()) return ir::promotion_operand_of_scalar(x.scalar());
  ir::Node* node = node_of(x.tensor(), name, loc);
  auto tier = node->shape.rank() == 0 ? ir::PromotionOperand::Tier::zero_dim
                                      : ir::PromotionOperand::Tier::dimensioned;
  return {tier, node->dtype};
}

// A primitive rather than a composite: a matrix product's epilogue takes it as one node.
Tensor gelu_tanh_grad(const Tensor& g, const Tensor& x, std::source_location loc) {
  return binary(Op::GeluTanhGrad, "gelu_tanh's gradient", g, x, loc);
}
}  // namespace api

Tensor gelu_tanh(const Tensor& x, std::source_location loc) {
  api::require_floating(x, "gelu_tanh", loc);
  return unary(Op::GeluTanh, "gelu_tanh", x, loc);
}

Tensor silu(const Tensor& x, std::source_location loc) {
  api::require_floating(x, "silu", loc);
  return api::in_compute_type(x, loc,
                              [&](const Tensor& v) { return mul(v, sigmoid(v, loc), loc); });
}

// Marked for its gradient, sigmoid(x): through the primitives, the branch the threshold drops
// would give 0 * inf where exp(x) overflows.
Tensor softplus(const Tensor& x, std::source_location loc) {
  api::require_floating(x, "softplus", loc);
  constexpr double kLinearAbove = 20.0;  // PyTorch's default threshold
  return api::in_compute_type(x, loc, [&](const Tensor& v) {
    Tensor result = where(gt(v, kLinearAbove, loc), v, log1p(exp(v, loc), loc), loc);
    api::mark_composite(result, {api::CompositeKind::softplus, v, {}, {}});
    return result;
  });
}

}  // namespace lazy

namespace lazy {
Tensor Tensor::to(DType dtype, std::source_location loc) const {
  return cast(*this, dtype, loc);
}
}  // namespace lazy
