#include "autodiff/vjp_rules.h"

#include <array>
#include <numbers>
#include <optional>
#include <vector>

#include "api/composites.h"
#include "autodiff/product_rules.h"
#include "autodiff/reduction_rules.h"
#include "autodiff/scan_rules.h"
#include "autodiff/scatter_rules.h"
#include "autodiff/slice_pieces.h"
#include "autodiff/trig_rules.h"
#include "lazy/factories.h"
#include "lazy/indexing.h"
#include "lazy/ops.h"
#include "lazy/ordering.h"
#include "lazy/scans.h"

namespace lazy::autodiff {

namespace {

using ir::Op;

// ---- unary pointwise: d/dx of f(x), times the cotangent ----

InputCotangents neg_vjp(const VjpArgs& a) {
  return only(lazy::neg(a.cotangent, a.loc));
}
InputCotangents abs_vjp(const VjpArgs& a) {
  return only(lazy::mul(a.cotangent, lazy::sign(a.inputs[0], a.loc), a.loc));
}
InputCotangents square_vjp(const VjpArgs& a) {
  return only(lazy::mul(a.cotangent, lazy::mul(a.inputs[0], 2, a.loc), a.loc));
}
InputCotangents relu_vjp(const VjpArgs& a) {
  // 0 where x <= 0: NaN passes the cotangent on, as PyTorch's threshold_backward.
  return only(lazy::where(lazy::le(a.inputs[0], 0, a.loc), 0, a.cotangent, a.loc));
}
InputCotangents exp_vjp(const VjpArgs& a) {
  return only(lazy::mul(a.cotangent, a.output, a.loc));
}
InputCotangents exp2_vjp(const VjpArgs& a) {
  return only(lazy::mul(a.cotangent, lazy::mul(a.output, std::numbers::ln2, a.loc), a.loc));
}
InputCotangents log_vjp(const VjpArgs& a) {
  return only(lazy::div(a.cotangent, a.inputs[0], a.loc));
}
InputCotangents log2_vjp(const VjpArgs& a) {
  return only(lazy::div(a.cotangent, lazy::mul(a.inputs[0], std::numbers::ln2, a.loc), a.loc));
}
InputCotangents log1p_vjp(const VjpArgs& a) {
  return only(lazy::div(a.cotangent, lazy::add(a.inputs[0], 1, a.loc), a.loc));
}
InputCotangents expm1_vjp(const VjpArgs& a) {
  // exp(x): PyTorch's result + 1 is 0 below x = -17 in f32, and elu's gradient with it.
  return only(lazy::mul(a.cotangent, lazy::exp(a.inputs[0], a.loc), a.loc));
}
InputCotangents sqrt_vjp(const VjpArgs& a) {
  return only(lazy::div(a.cotangent, lazy::mul(a.output, 2, a.loc), a.loc));
}
InputCotangents rsqrt_vjp(const VjpArgs& a) {
  // d/dx x^-1/2 = -x^-3/2 / 2 = -out^3 / 2
  const Tensor cube = lazy::mul(lazy::square(a.output, a.loc), a.output, a.loc);
  return only(lazy::mul(a.cotangent, lazy::mul(cube, -0.5, a.loc), a.loc));
}
InputCotangents sin_vjp(const VjpArgs& a) {
  return only(lazy::mul(a.cotangent, lazy::cos(a.inputs[0], a.loc), a.loc));
}
InputCotangents cos_vjp(const VjpArgs& a) {
  return only(lazy::neg(lazy::mul(a.cotangent, lazy::sin(a.inputs[0], a.loc), a.loc), a.loc));
}
InputCotangents tanh_vjp(const VjpArgs& a) {
  const Tensor slope = lazy::sub(1, lazy::square(a.output, a.loc), a.loc);
  return only(lazy::mul(a.cotangent, slope, a.loc));
}
InputCotangents erf_vjp(const VjpArgs& a) {
  // 2/sqrt(pi) exp(-x^2)
  const Tensor bell = lazy::exp(lazy::neg(lazy::square(a.inputs[0], a.loc), a.loc), a.loc);
  return only(lazy::mul(a.cotangent, lazy::mul(bell, 2 * std::numbers::inv_sqrtpi, a.loc), a.loc));
}
InputCotangents sigmoid_vjp(const VjpArgs& a) {
  const Tensor slope = lazy::mul(a.output, lazy::sub(1, a.output, a.loc), a.loc);
  return only(lazy::mul(a.cotangent, slope, a.loc));
}
InputCotangents gelu_tanh_vjp(const VjpArgs& a) {
  // One node, so that a product it multiplies takes it as cuBLASLt's DGELU epilogue.
  return only(api::gelu_tanh_grad(a.cotangent, a.inputs[0], a.loc));
}
InputCotangents gelu_tanh_grad_vjp(const VjpArgs& a) {
  // g * gelu'(x): d/dg = gelu'(x); d/dx = g gelu''(x), with t = tanh(u), u = c (x + k x^3):
  // gelu'' = (1 - t^2) (u' + x / 2 (u'' - 2 t u'^2)), u' = c (1 + 3 k x^2), u'' = 6 c k x.
  constexpr double c = 0.7978845608028654, k = 0.044715;
  const Tensor &g = a.inputs[0], &x = a.inputs[1];
  return {
      if_wanted(a, 0, [&] { return api::gelu_tanh_grad(a.cotangent, x, a.loc); }),
      if_wanted(a, 1, [&] {
        const Tensor x2 = lazy::square(x, a.loc);
        const Tensor t = lazy::tanh(
            lazy::mul(lazy::add(x, lazy::mul(lazy::mul(x2, x, a.loc), k, a.loc), a.loc), c, a.loc),
            a.loc);
        const Tensor du = lazy::mul(lazy::add(lazy::mul(x2, 3 * k, a.loc), 1, a.loc), c, a.loc);
        const Tensor ddu = lazy::mul(x, 6 * c * k, a.loc);
        const Tensor bend = lazy::sub(
            ddu, lazy::mul(lazy::mul(t, 2, a.loc), lazy::square(du, a.loc), a.loc), a.loc);
        const Tensor second = lazy::mul(
            lazy::sub(1, lazy::square(t, a.loc), a.loc),
            lazy::add(du, lazy::mul(lazy::mul(x, 0.5, a.loc), bend, a.loc), a.loc), a.loc);
        return lazy::mul(lazy::mul(a.cotangent, g, a.loc), second, a.loc);
      })};
}
InputCotangents reciprocal_vjp(const VjpArgs& a) {
  return only(lazy::neg(lazy::mul(a.cotangent, lazy::square(a.output, a.loc), a.loc), a.loc));
}
InputCotangents cast_vjp(const VjpArgs& a) {
  return only(a.cotangent);  // converted back to the input's dtype by the caller
}

// ---- binary and ternary pointwise ----

InputCotangents add_vjp(const VjpArgs& a) {
  return {if_wanted(a, 0, [&] { return a.cotangent; }),
          if_wanted(a, 1, [&] { return a.cotangent; })};
}
InputCotangents sub_vjp(const VjpArgs& a) {
  return {if_wanted(a, 0, [&] { return a.cotangent; }),
          if_wanted(a, 1, [&] { return lazy::neg(a.cotangent, a.loc); })};
}
InputCotangents mul_vjp(const VjpArgs& a) {
  return {if_wanted(a, 0, [&] { return lazy::mul(a.cotangent, a.inputs[1], a.loc); }),
          if_wanted(a, 1, [&] { return lazy::mul(a.cotangent, a.inputs[0], a.loc); })};
}
InputCotangents div_vjp(const VjpArgs& a) {
  // d/dy x / y = -out / y, divided before the cotangent multiplies (PyTorch's order, which a
  // large cotangent times a large quotient would otherwise overflow).
  return {if_wanted(a, 0, [&] { return lazy::div(a.cotangent, a.inputs[1], a.loc); }),
          if_wanted(a, 1, [&] {
            return lazy::neg(lazy::mul(a.cotangent, lazy::div(a.output, a.inputs[1], a.loc), a.loc),
                             a.loc);
          })};
}
InputCotangents pow_vjp(const VjpArgs& a) {
  const Tensor &x = a.inputs[0], &y = a.inputs[1];
  return {if_wanted(a, 0,
                    [&] {
                      // y x^(y-1), and 0 where y is 0 (PyTorch's), even at x = 0. There x is
                      // read as 1, so that the hidden 0^-1 = inf makes no NaN in the next
                      // derivative (0 * inf).
                      const Tensor at_zero = lazy::eq(y, 0, a.loc);
                      const Tensor base = lazy::where(at_zero, 1, x, a.loc);
                      const Tensor slope =
                          lazy::mul(y, lazy::pow(base, lazy::sub(y, 1, a.loc), a.loc), a.loc);
                      return lazy::mul(a.cotangent, lazy::where(at_zero, 0, slope, a.loc), a.loc);
                    }),
          if_wanted(a, 1, [&] {
            // out log x, and 0 where x is 0 and y >= 0 (PyTorch's)
            const Tensor slope = lazy::mul(a.output, lazy::log(x, a.loc), a.loc);
            const Tensor zero_base =
                lazy::logical_and(lazy::eq(x, 0, a.loc), lazy::ge(y, 0, a.loc), a.loc);
            return lazy::mul(a.cotangent, lazy::where(zero_base, 0, slope, a.loc), a.loc);
          })};
}
// maximum and minimum: the cotangent goes to the chosen operand, halved between equal ones; an
// operand the other beats gets none, so with a NaN both get it all, as in PyTorch.
InputCotangents extremum_vjp(const VjpArgs& a, bool maximum) {
  const Tensor &x = a.inputs[0], &y = a.inputs[1];
  const Tensor tie = lazy::eq(x, y, a.loc);
  const Tensor half = lazy::mul(a.cotangent, 0.5, a.loc);
  const auto share = [&](const Tensor& mine, const Tensor& other) {
    const Tensor beaten = maximum ? lazy::lt(mine, other, a.loc) : lazy::gt(mine, other, a.loc);
    return lazy::where(tie, half, lazy::where(beaten, 0, a.cotangent, a.loc), a.loc);
  };
  return {if_wanted(a, 0, [&] { return share(x, y); }),
          if_wanted(a, 1, [&] { return share(y, x); })};
}
InputCotangents maximum_vjp(const VjpArgs& a) {
  return extremum_vjp(a, true);
}
InputCotangents minimum_vjp(const VjpArgs& a) {
  return extremum_vjp(a, false);
}
// a - q b, with the quotient q rounded down (remainder) or toward zero (fmod) held fixed, as
// PyTorch's rules.
InputCotangents division_remainder_vjp(const VjpArgs& a, const Tensor& quotient) {
  return {if_wanted(a, 0, [&] { return a.cotangent; }), if_wanted(a, 1, [&] {
            return lazy::neg(lazy::mul(a.cotangent, quotient, a.loc), a.loc);
          })};
}
InputCotangents remainder_vjp(const VjpArgs& a) {
  return division_remainder_vjp(a, lazy::floor_divide(a.inputs[0], a.inputs[1], a.loc));
}
InputCotangents fmod_vjp(const VjpArgs& a) {
  return division_remainder_vjp(a, lazy::trunc(lazy::div(a.inputs[0], a.inputs[1], a.loc), a.loc));
}
// The cotangent over `denominator`, and 0 where that is 0: hypot and atan2 take 0 as their
// gradient at the origin (as a norm does) rather than PyTorch's NaN, so a constant 0 fed to them
// passes 0, not NaN, on down the chain.
Tensor over_nonzero(const VjpArgs& a, const Tensor& denominator) {
  const Tensor zero = lazy::eq(denominator, 0, a.loc);
  return lazy::where(
      zero, 0, lazy::div(a.cotangent, lazy::where(zero, 1, denominator, a.loc), a.loc), a.loc);
}
InputCotangents atan2_vjp(const VjpArgs& a) {
  // atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
  const Tensor &y = a.inputs[0], &x = a.inputs[1];
  const Tensor scaled =
      over_nonzero(a, lazy::add(lazy::square(x, a.loc), lazy::square(y, a.loc), a.loc));
  return {if_wanted(a, 0, [&] { return lazy::mul(scaled, x, a.loc); }),
          if_wanted(a, 1, [&] { return lazy::neg(lazy::mul(scaled, y, a.loc), a.loc); })};
}
InputCotangents hypot_vjp(const VjpArgs& a) {
  const Tensor scaled = over_nonzero(a, a.output);
  return {if_wanted(a, 0, [&] { return lazy::mul(scaled, a.inputs[0], a.loc); }),
          if_wanted(a, 1, [&] { return lazy::mul(scaled, a.inputs[1], a.loc); })};
}
InputCotangents logaddexp_vjp(const VjpArgs& a) {
  // d/dx log(e^x + e^y) = 1 / (1 + e^(y - x)), as PyTorch's: one infinite operand takes it all
  // (e^(x - out) made inf - inf there).
  const auto share = [&](const Tensor& x, const Tensor& y) {
    return lazy::div(a.cotangent, lazy::add(lazy::exp(lazy::sub(y, x, a.loc), a.loc), 1, a.loc),
                     a.loc);
  };
  return {if_wanted(a, 0, [&] { return share(a.inputs[0], a.inputs[1]); }),
          if_wanted(a, 1, [&] { return share(a.inputs[1], a.inputs[0]); })};
}
InputCotangents where_vjp(const VjpArgs& a) {
  const Tensor& condition = a.inputs[0];
  return {Tensor(), if_wanted(a, 1, [&] { return lazy::where(condition, a.cotangent, 0, a.loc); }),
          if_wanted(a, 2, [&] { return lazy::where(condition, 0, a.cotangent, a.loc); })};
}
InputCotangents lerp_vjp(const VjpArgs& a) {
  // start + w (end - start)
  const Tensor &start = a.inputs[0], &end = a.inputs[1], &w = a.inputs[2];
  return {if_wanted(a, 0, [&] { return lazy::mul(a.cotangent, lazy::sub(1, w, a.loc), a.loc); }),
          if_wanted(a, 1, [&] { return lazy::mul(a.cotangent, w, a.loc); }), if_wanted(a, 2, [&] {
            return lazy::mul(a.cotangent, lazy::sub(end, start, a.loc), a.loc);
          })};
}

// ---- views and copies ----

InputCotangents reshape_vjp(const VjpArgs& a) {
  return only(a.cotangent.reshape(a.node.inputs[0]->shape, a.loc));
}
InputCotangents permute_vjp(const VjpArgs& a) {
  std::vector<int> inverse(std::size_t(a.node.attrs.count));
  for (int axis = 0; axis < int(a.node.attrs.count); ++axis)
    inverse[std::size_t(a.node.attrs[axis])] = axis;
  return only(a.cotangent.permute(inverse, a.loc));
}
InputCotangents expand_vjp(const VjpArgs& a) {
  return only(a.cotangent);  // summed down to the input's shape by the caller
}
InputCotangents slice_vjp(const VjpArgs& a) {
  // The cotangent put back where the slice read, zeros elsewhere (autodiff/slice_pieces.h).
  const ir::Node& sliced = *a.node.inputs[0];
  if (std::optional<SlicePiece> piece = slice_piece(a.node, a.cotangent, a.loc))
    return only(join_pieces({std::move(*piece)}, sliced, a.loc));
  return only(lazy::zeros(sliced.shape, a.cotangent.dtype(), a.loc));
}
InputCotangents copy_vjp(const VjpArgs& a) {
  return only(a.cotangent);
}
InputCotangents alias_vjp(const VjpArgs& a) {
  return only(stops_gradient(a.node) ? Tensor() : a.cotangent);
}
InputCotangents concat_vjp(const VjpArgs& a) {
  const int axis = int(a.node.attrs[0]);
  InputCotangents out;
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < a.node.inputs.size(); ++i) {
    const std::int64_t size = a.node.inputs[i]->shape[axis];
    out.push_back(if_wanted(
        a, int(i), [&] { return a.cotangent.slice(axis, offset, offset + size, 1, a.loc); }));
    offset += size;
  }
  return out;
}
// ---- reductions and scans ----

// Values picked from the input's last axis (top-k, sort, cummax, cummin) send their cotangent
// back to where each was picked, found again by the same selection.
Tensor to_picked_positions(const VjpArgs& a, const Tensor& positions) {
  const Tensor zeros = lazy::zeros(a.node.inputs[0]->shape, a.cotangent.dtype(), a.loc);
  return lazy::scatter_add(zeros, -1, positions, a.cotangent, a.loc);
}
InputCotangents top_k_vjp(const VjpArgs& a) {
  const Tensor positions =
      lazy::topk(a.inputs[0], a.node.attrs[0], -1, a.node.attrs[1] != 0, a.loc).indices;
  return only(to_picked_positions(a, positions));
}
InputCotangents cummax_vjp(const VjpArgs& a) {
  return only(to_picked_positions(a, lazy::cummax(a.inputs[0], -1, a.loc).indices));
}
InputCotangents cummin_vjp(const VjpArgs& a) {
  return only(to_picked_positions(a, lazy::cummin(a.inputs[0], -1, a.loc).indices));
}
struct TableRow {
  Differentiability differentiability;
  VjpRule rule;
};

constexpr TableRow kNone{Differentiability::none, nullptr};
constexpr TableRow kMissing{Differentiability::missing, nullptr};
constexpr TableRow with(VjpRule rule) {
  return {Differentiability::rule, rule};
}

// Every op of the table, by its place in the enum.
#define LAZY_COUNT_OP(...) +1
constexpr std::size_t kOps = 0 LAZY_FOR_EACH_OP(LAZY_COUNT_OP);
#undef LAZY_COUNT_OP

// Ops whose value is piecewise constant, an index or not floating: no gradient flows back.
constexpr Op kPassesNone[] = {
    // leaves and generators
    Op::Data, Op::Scalar, Op::Arange, Op::RandUniform, Op::RandNormal,
    // rounding, classification and comparisons
    Op::Sign, Op::Floor, Op::Ceil, Op::Round, Op::Trunc, Op::FloorDivide, Op::IsNan, Op::IsInf,
    Op::IsFinite, Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge,
    // logic and bits
    Op::LogicalNot, Op::LogicalAnd, Op::LogicalOr, Op::LogicalXor, Op::BitwiseNot, Op::BitwiseAnd,
    Op::BitwiseOr, Op::BitwiseXor, Op::BitwiseLeftShift, Op::BitwiseRightShift,
    // positions and truth values
    Op::ArgMax, Op::ArgMin, Op::ReduceAny, Op::ReduceAll, Op::CumArgMax, Op::CumArgMin,
    Op::TopKIndex};

std::array<TableRow, kOps> make_table() {
  std::array<TableRow, kOps> table;
  table.fill(kMissing);
  const auto set = [&](Op op, TableRow row) { table[std::size_t(op)] = row; };
  for (Op op : kPassesNone) set(op, kNone);
  set(Op::Neg, with(neg_vjp));
  set(Op::Abs, with(abs_vjp));
  set(Op::Square, with(square_vjp));
  set(Op::Relu, with(relu_vjp));
  set(Op::Exp, with(exp_vjp));
  set(Op::Exp2, with(exp2_vjp));
  set(Op::Log, with(log_vjp));
  set(Op::Log2, with(log2_vjp));
  set(Op::Log1p, with(log1p_vjp));
  set(Op::Expm1, with(expm1_vjp));
  set(Op::Sqrt, with(sqrt_vjp));
  set(Op::Rsqrt, with(rsqrt_vjp));
  set(Op::Sin, with(sin_vjp));
  set(Op::Cos, with(cos_vjp));
  set(Op::Tanh, with(tanh_vjp));
  set(Op::Tan, with(tan_vjp));
  set(Op::Asin, with(asin_vjp));
  set(Op::Acos, with(acos_vjp));
  set(Op::Atan, with(atan_vjp));
  set(Op::Sinh, with(sinh_vjp));
  set(Op::Cosh, with(cosh_vjp));
  set(Op::Asinh, with(asinh_vjp));
  set(Op::Acosh, with(acosh_vjp));
  set(Op::Atanh, with(atanh_vjp));
  set(Op::Log10, with(log10_vjp));
  set(Op::Erf, with(erf_vjp));
  set(Op::Sigmoid, with(sigmoid_vjp));
  set(Op::GeluTanh, with(gelu_tanh_vjp));
  set(Op::GeluTanhGrad, with(gelu_tanh_grad_vjp));
  set(Op::Reciprocal, with(reciprocal_vjp));
  set(Op::Cast, with(cast_vjp));
  set(Op::Add, with(add_vjp));
  set(Op::Sub, with(sub_vjp));
  set(Op::Mul, with(mul_vjp));
  set(Op::Div, with(div_vjp));
  set(Op::Pow, with(pow_vjp));
  set(Op::Maximum, with(maximum_vjp));
  set(Op::Minimum, with(minimum_vjp));
  set(Op::Remainder, with(remainder_vjp));
  set(Op::Fmod, with(fmod_vjp));
  set(Op::Atan2, with(atan2_vjp));
  set(Op::Hypot, with(hypot_vjp));
  set(Op::LogAddExp, with(logaddexp_vjp));
  set(Op::Where, with(where_vjp));
  set(Op::Lerp, with(lerp_vjp));
  set(Op::Reshape, with(reshape_vjp));
  set(Op::Permute, with(permute_vjp));
  set(Op::Expand, with(expand_vjp));
  set(Op::Slice, with(slice_vjp));
  set(Op::Contiguous, with(copy_vjp));
  set(Op::Alias, with(alias_vjp));
  set(Op::ReduceSum, with(sum_vjp));
  set(Op::ReduceProd, with(prod_vjp));
  set(Op::ReduceMax, with(extreme_vjp));
  set(Op::ReduceMin, with(extreme_vjp));
  set(Op::MatMul, with(matmul_vjp));
  set(Op::Gather, with(gather_vjp));
  set(Op::Concat, with(concat_vjp));
  set(Op::CumSum, with(cumsum_vjp));
  set(Op::CumProd, with(cumprod_vjp));
  set(Op::CumMax, with(cummax_vjp));
  set(Op::CumMin, with(cummin_vjp));
  set(Op::TopK, with(top_k_vjp));
  set(Op::ScatterAdd, with(scatter_add_vjp));
  set(Op::ScatterLast, with(scatter_last_vjp));
  return table;
}

const std::array<TableRow, kOps>& table() {
  static const std::array<TableRow, kOps> rows = make_table();
  return rows;
}

}  // namespace

Differentiability differentiability(Op op) {
  return table()[std::size_t(op)].differentiability;
}

VjpRule vjp_rule(Op op) {
  return table()[std::size_t(op)].rule;
}

}  // namespace lazy::autodiff
