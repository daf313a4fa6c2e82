// Pointwise ops on tensors. Each call checks shapes and dtypes, throws at the call on a
// mismatch, and records the op; nothing is computed until a sync point.
//
// Broadcasting follows NumPy; type promotion follows PyTorch (docs/semantics.md).
#pragma once

#include <optional>
#include <source_location>

#include "lazy/scalar.h"
#include "lazy/tensor.h"

namespace lazy {

// A tensor or a number, where either is accepted. It remembers where it was written, which is
// how operators (that cannot take a default argument) learn the caller's file:line. It refers
// to its tensor without owning it: an argument type, not one to keep (`auto o = Operand(x + 1)`
// would outlive the temporary it names).
class Operand {
 public:
  Operand(const Tensor& tensor,  // NOLINT(google-explicit-constructor)
          std::source_location loc = std::source_location::current())
      : tensor_(&tensor), scalar_(0), loc_(loc) {}
  template <class T>
  requires(std::is_arithmetic_v<T>&& std::is_constructible_v<Scalar, T>)
      Operand(T value,  // NOLINT(google-explicit-constructor)
              std::source_location loc = std::source_location::current())
      : tensor_(nullptr), scalar_(value), loc_(loc) {}
  Operand(const Scalar& value,  // NOLINT(google-explicit-constructor)
          std::source_location loc = std::source_location::current())
      : tensor_(nullptr), scalar_(value), loc_(loc) {}

  bool is_tensor() const { return tensor_ != nullptr; }
  const Tensor& tensor() const { return *tensor_; }
  const Scalar& scalar() const { return scalar_; }
  const std::source_location& loc() const { return loc_; }

 private:
  const Tensor* tensor_;
  Scalar scalar_;
  std::source_location loc_;
};

#define LAZY_DECLARE_BINARY(name)                 \
  Tensor name(const Operand& a, const Operand& b, \
              std::source_location loc = std::source_location::current());
#define LAZY_DECLARE_UNARY(name) \
  Tensor name(const Tensor& x, std::source_location loc = std::source_location::current());

// Arithmetic. div is true division: integer inputs give a floating result.
LAZY_DECLARE_BINARY(add)
LAZY_DECLARE_BINARY(sub)
LAZY_DECLARE_BINARY(mul)
LAZY_DECLARE_BINARY(div)
LAZY_DECLARE_BINARY(pow)
// NaN in either input gives NaN, as in PyTorch.
LAZY_DECLARE_BINARY(maximum)
LAZY_DECLARE_BINARY(minimum)
// Integer division as PyTorch's: floor_divide rounds the quotient down (Python's //), remainder
// takes the divisor's sign (Python's %, `a % b`), fmod the dividend's (C's %). Integers stay
// integers, and an integer divisor of 0 gives 0; a floating one gives NaN or an infinity.
LAZY_DECLARE_BINARY(floor_divide)
LAZY_DECLARE_BINARY(remainder)
LAZY_DECLARE_BINARY(fmod)
// Floating results (integer inputs give f32, where PyTorch's CPU refuses them for hypot and
// logaddexp): the angle of the point (b, a) in [-pi, pi] (atan2(-0, -1) is -pi); sqrt(a^2 + b^2)
// without overflow; log(exp(a) + exp(b)) without overflow.
LAZY_DECLARE_BINARY(atan2)
LAZY_DECLARE_BINARY(hypot)
LAZY_DECLARE_BINARY(logaddexp)

// Comparisons give bool.
LAZY_DECLARE_BINARY(eq)
LAZY_DECLARE_BINARY(ne)
LAZY_DECLARE_BINARY(lt)
LAZY_DECLARE_BINARY(le)
LAZY_DECLARE_BINARY(gt)
LAZY_DECLARE_BINARY(ge)

// Logical ops take any dtype (non-zero is true) and give bool.
LAZY_DECLARE_BINARY(logical_and)
LAZY_DECLARE_BINARY(logical_or)
LAZY_DECLARE_BINARY(logical_xor)
LAZY_DECLARE_UNARY(logical_not)

// Bitwise ops take integer and bool tensors (floating ones are a DTypeError); and, or and xor
// of bool are logic, and bitwise_not of bool is logical_not. A shift by a negative count, or by
// the dtype's width or more, gives 0 (a right shift: the sign, 0 or -1), as PyTorch's; shifts
// take operands that promote to an integer dtype (bool << 1 is i64; bool by bool is refused).
LAZY_DECLARE_BINARY(bitwise_and)
LAZY_DECLARE_BINARY(bitwise_or)
LAZY_DECLARE_BINARY(bitwise_xor)
LAZY_DECLARE_BINARY(bitwise_left_shift)
LAZY_DECLARE_BINARY(bitwise_right_shift)
LAZY_DECLARE_UNARY(bitwise_not)

LAZY_DECLARE_UNARY(neg)
LAZY_DECLARE_UNARY(abs)
LAZY_DECLARE_UNARY(sign)
LAZY_DECLARE_UNARY(square)
LAZY_DECLARE_UNARY(relu)
// Rounding keeps integer tensors as they are; round() rounds half to even, trunc() toward zero.
LAZY_DECLARE_UNARY(floor)
LAZY_DECLARE_UNARY(ceil)
LAZY_DECLARE_UNARY(round)
LAZY_DECLARE_UNARY(trunc)

// Floating functions: integer and bool inputs give f32.
LAZY_DECLARE_UNARY(exp)
LAZY_DECLARE_UNARY(exp2)
LAZY_DECLARE_UNARY(log)
LAZY_DECLARE_UNARY(log2)
LAZY_DECLARE_UNARY(log1p)
LAZY_DECLARE_UNARY(expm1)
LAZY_DECLARE_UNARY(sqrt)
LAZY_DECLARE_UNARY(rsqrt)
LAZY_DECLARE_UNARY(sin)
LAZY_DECLARE_UNARY(cos)
LAZY_DECLARE_UNARY(tanh)
LAZY_DECLARE_UNARY(erf)
// tan, the inverse trigonometric functions, the hyperbolic ones and their inverses, and log10:
// NaN outside their domains (asin(2), acosh(0.5)); atanh(±1) is ±inf, as PyTorch's.
LAZY_DECLARE_UNARY(tan)
LAZY_DECLARE_UNARY(asin)
LAZY_DECLARE_UNARY(acos)
LAZY_DECLARE_UNARY(atan)
LAZY_DECLARE_UNARY(sinh)
LAZY_DECLARE_UNARY(cosh)
LAZY_DECLARE_UNARY(asinh)
LAZY_DECLARE_UNARY(acosh)
LAZY_DECLARE_UNARY(atanh)
LAZY_DECLARE_UNARY(log10)
LAZY_DECLARE_UNARY(sigmoid)
LAZY_DECLARE_UNARY(reciprocal)

// Composites, recorded as the primitives they are made of so that fusion sees through them.
// gelu: x * Phi(x) with the exact erf; gelu_tanh: PyTorch's approximate="tanh" form.
LAZY_DECLARE_UNARY(gelu)
LAZY_DECLARE_UNARY(gelu_tanh)
LAZY_DECLARE_UNARY(silu)
// log(1 + exp(x)), and x itself above 20 where that would only lose precision (as PyTorch).
LAZY_DECLARE_UNARY(softplus)
// torch.nn.functional's activations, each PyTorch's formula on floating x (f16 and bf16 in f32,
// rounded once), with its gradient at the kinks (leaky_relu's at 0 is the slope; hardtanh,
// relu6 and hardsigmoid pass none at their corners; hardswish's is 0 at -3 and 1 at 3).
// hardtanh, relu6 and threshold also take integer tensors; softsign and tanhshrink, which PyTorch
// writes from tensor ops, round each step to the dtype as those do, and give f32 for integers.
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01,
                  std::source_location loc = std::source_location::current());
// alpha * (exp(x) - 1) below 0 (computed as expm1), x above.
Tensor elu(const Tensor& x, double alpha = 1.0,
           std::source_location loc = std::source_location::current());
// elu with alpha 1.6732632423543772 scaled by 1.0507009873554805.
LAZY_DECLARE_UNARY(selu)
// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
Tensor celu(const Tensor& x, double alpha = 1.0,
            std::source_location loc = std::source_location::current());
// x clamped to [min_val, max_val]; relu6 is hardtanh(x, 0, 6).
Tensor hardtanh(const Tensor& x, double min_val = -1.0, double max_val = 1.0,
                std::source_location loc = std::source_location::current());
LAZY_DECLARE_UNARY(relu6)
// clamp(x + 3, 0, 6) / 6, and x times it.
LAZY_DECLARE_UNARY(hardsigmoid)
LAZY_DECLARE_UNARY(hardswish)
// x * tanh(softplus(x)).
LAZY_DECLARE_UNARY(mish)
// log(sigmoid(x)), without overflow: -softplus(-x).
LAZY_DECLARE_UNARY(log_sigmoid)
// x / (1 + |x|), and x - tanh(x).
LAZY_DECLARE_UNARY(softsign)
LAZY_DECLARE_UNARY(tanhshrink)
// x moved toward 0 by lambd (0 within it), and x where |x| > lambd (else 0).
Tensor softshrink(const Tensor& x, double lambd = 0.5,
                  std::source_location loc = std::source_location::current());
Tensor hardshrink(const Tensor& x, double lambd = 0.5,
                  std::source_location loc = std::source_location::current());
// value where x <= threshold, else x.
Tensor threshold(const Tensor& x, double threshold, double value,
                 std::source_location loc = std::source_location::current());
// The first half of x along `axis` times the sigmoid of the second (the axis must be even).
Tensor glu(const Tensor& x, int axis = -1,
           std::source_location loc = std::source_location::current());

// torch.xlogy: x * log(y), 0 where x is 0 (even where y is 0 or inf), NaN where y is NaN, in the
// dtype x and y promote to (integers give f32), computed in f32 and rounded once. Its gradient is
// PyTorch's: xlogy(g, y) for x (0 at x = 0 with y <= 0), g x / y for y (NaN at x = y = 0).
Tensor xlogy(const Operand& x, const Operand& y,
             std::source_location loc = std::source_location::current());

// torch.logit: log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given; integers
// give f32. Its gradient is PyTorch's: 1 / (x (1 - x)), infinite at 0 and 1, NaN outside [0, 1],
// and 0 outside [eps, 1 - eps] with eps.
Tensor logit(const Tensor& x, std::optional<double> eps = {},
             std::source_location loc = std::source_location::current());

// torch.isclose: |a - b| <= atol + |rtol * b| where finite, or a == b (infinities), or both NaN
// with equal_nan; a and b of one dtype, which they are compared in (integers too). allclose is
// whether all of them are: a host read, so it waits for the result.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
               bool equal_nan = false, std::source_location loc = std::source_location::current());
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false, std::source_location loc = std::source_location::current());

// PyTorch's dropout: in training, each element is zeroed with probability p and the others are
// scaled by 1 / (1 - p); the draw is rand(x's shape, seed) < 1 - p, so a seed gives the same mask
// on every backend. Outside training, with p = 0 or with no element, x itself, and with p = 1,
// x * 0 (of any dtype, as PyTorch's); otherwise x must be floating. p in [0, 1].
Tensor dropout(const Tensor& x, double p, std::uint64_t seed, bool training = true,
               std::source_location loc = std::source_location::current());
// Either bound may be a tensor or a number; min(max(x, lo), hi).
Tensor clamp(const Tensor& x, const Operand& lo, const Operand& hi,
             std::source_location loc = std::source_location::current());

// Classification: bool results; integer inputs are never NaN or infinite.
LAZY_DECLARE_UNARY(isnan)
LAZY_DECLARE_UNARY(isinf)
LAZY_DECLARE_UNARY(isfinite)

// PyTorch's nan_to_num: NaN, +inf and -inf replaced by `nan` and by `posinf` and `neginf` (by
// default the dtype's largest and lowest finite values), each converted to x's dtype as a cast
// converts (1e6 is inf in f16, as PyTorch's). Integer and bool tensors come back as they are.
// The gradient flows where x is finite.
Tensor nan_to_num(const Tensor& x, double nan = 0.0, std::optional<double> posinf = {},
                  std::optional<double> neginf = {},
                  std::source_location loc = std::source_location::current());

// Elements of a where cond is true, else of b. cond must be bool.
Tensor where(const Tensor& cond, const Operand& a, const Operand& b,
             std::source_location loc = std::source_location::current());

// start + weight * (end - start), exact at both ends (PyTorch's lerp). Floating dtypes only.
Tensor lerp(const Tensor& start, const Operand& end, const Operand& weight,
            std::source_location loc = std::source_location::current());

// Conversion to another dtype (the same as x.to(dtype)).
Tensor cast(const Tensor& x, DType dtype,
            std::source_location loc = std::source_location::current());

#undef LAZY_DECLARE_BINARY
#undef LAZY_DECLARE_UNARY

inline Tensor operator+(const Operand& a, const Operand& b) {
  return add(a, b, a.loc());
}
inline Tensor operator-(const Operand& a, const Operand& b) {
  return sub(a, b, a.loc());
}
inline Tensor operator*(const Operand& a, const Operand& b) {
  return mul(a, b, a.loc());
}
inline Tensor operator/(const Operand& a, const Operand& b) {
  return div(a, b, a.loc());
}
// Python's and PyTorch's %: the remainder with the divisor's sign.
inline Tensor operator%(const Operand& a, const Operand& b) {
  return remainder(a, b, a.loc());
}
Tensor operator-(const Operand& x);
inline Tensor operator&(const Operand& a, const Operand& b) {
  return bitwise_and(a, b, a.loc());
}
inline Tensor operator|(const Operand& a, const Operand& b) {
  return bitwise_or(a, b, a.loc());
}
inline Tensor operator^(const Operand& a, const Operand& b) {
  return bitwise_xor(a, b, a.loc());
}
inline Tensor operator<<(const Operand& a, const Operand& b) {
  return bitwise_left_shift(a, b, a.loc());
}
inline Tensor operator>>(const Operand& a, const Operand& b) {
  return bitwise_right_shift(a, b, a.loc());
}
Tensor operator~(const Operand& x);
// Arithmetic and comparisons of two numbers are the numbers' own (to_double, to_int): without
// these, lazy::Scalar(2) + 1 or lazy::Scalar(2) == 1 would reach the Operand overloads, which need
// a tensor, and compile into a call that throws.
Tensor operator-(const Scalar& x) = delete;
Tensor operator+(const Scalar& a, const Scalar& b) = delete;
Tensor operator-(const Scalar& a, const Scalar& b) = delete;
Tensor operator*(const Scalar& a, const Scalar& b) = delete;
Tensor operator/(const Scalar& a, const Scalar& b) = delete;
Tensor operator%(const Scalar& a, const Scalar& b) = delete;
Tensor operator&(const Scalar& a, const Scalar& b) = delete;
Tensor operator|(const Scalar& a, const Scalar& b) = delete;
Tensor operator^(const Scalar& a, const Scalar& b) = delete;
Tensor operator<<(const Scalar& a, const Scalar& b) = delete;
Tensor operator>>(const Scalar& a, const Scalar& b) = delete;
Tensor operator~(const Scalar& x) = delete;
Tensor operator==(const Scalar& a, const Scalar& b) = delete;
Tensor operator!=(const Scalar& a, const Scalar& b) = delete;
Tensor operator<(const Scalar& a, const Scalar& b) = delete;
Tensor operator<=(const Scalar& a, const Scalar& b) = delete;
Tensor operator>(const Scalar& a, const Scalar& b) = delete;
Tensor operator>=(const Scalar& a, const Scalar& b) = delete;
inline Tensor operator==(const Operand& a, const Operand& b) {
  return eq(a, b, a.loc());
}
inline Tensor operator!=(const Operand& a, const Operand& b) {
  return ne(a, b, a.loc());
}
inline Tensor operator<(const Operand& a, const Operand& b) {
  return lt(a, b, a.loc());
}
inline Tensor operator<=(const Operand& a, const Operand& b) {
  return le(a, b, a.loc());
}
inline Tensor operator>(const Operand& a, const Operand& b) {
  return gt(a, b, a.loc());
}
inline Tensor operator>=(const Operand& a, const Operand& b) {
  return ge(a, b, a.loc());
}

}  // namespace lazy
