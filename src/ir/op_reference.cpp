#include "ir/op_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace lazy::ir::reference {

namespace {

// Wrapping int64 arithmetic (signed overflow is undefined in C++; the hardware wraps).
int64_t wrap_add(int64_t a, int64_t b) {
  return int64_t(std::uint64_t(a) + std::uint64_t(b));
}
int64_t wrap_sub(int64_t a, int64_t b) {
  return int64_t(std::uint64_t(a) - std::uint64_t(b));
}
int64_t wrap_mul(int64_t a, int64_t b) {
  return int64_t(std::uint64_t(a) * std::uint64_t(b));
}

}  // namespace

double neg(double x) {
  return -x;
}
int64_t neg(int64_t x) {
  return wrap_sub(0, x);
}
double abs(double x) {
  return std::fabs(x);
}
int64_t abs(int64_t x) {
  return x < 0 ? wrap_sub(0, x) : x;
}
double sign(double x) {
  return double((0 < x) - (x < 0));
}  // NaN gives 0, as on the GPU
int64_t sign(int64_t x) {
  return (0 < x) - (x < 0);
}
double square(double x) {
  return x * x;
}
int64_t square(int64_t x) {
  return wrap_mul(x, x);
}
double relu(double x) {
  return std::isnan(x) ? x : (x > 0 ? x : 0.0);
}
int64_t relu(int64_t x) {
  return x > 0 ? x : 0;
}
double floor(double x) {
  return std::floor(x);
}
double ceil(double x) {
  return std::ceil(x);
}
double trunc(double x) {
  return std::trunc(x);
}
double round(double x) {
  return std::nearbyint(x);
}  // half to even
double exp(double x) {
  return std::exp(x);
}
double exp2(double x) {
  return std::exp2(x);
}
double log(double x) {
  return std::log(x);
}
double log2(double x) {
  return std::log2(x);
}
double log1p(double x) {
  return std::log1p(x);
}
double expm1(double x) {
  return std::expm1(x);
}
double sqrt(double x) {
  return std::sqrt(x);
}
double rsqrt(double x) {
  return 1.0 / std::sqrt(x);
}
double sin(double x) {
  return std::sin(x);
}
double cos(double x) {
  return std::cos(x);
}
double tanh(double x) {
  return std::tanh(x);
}
double tan(double x) {
  return std::tan(x);
}
double asin(double x) {
  return std::asin(x);
}
double acos(double x) {
  return std::acos(x);
}
double atan(double x) {
  return std::atan(x);
}
double sinh(double x) {
  return std::sinh(x);
}
double cosh(double x) {
  return std::cosh(x);
}
double asinh(double x) {
  return std::asinh(x);
}
double acosh(double x) {
  return std::acosh(x);
}
double atanh(double x) {
  return std::atanh(x);
}
double log10(double x) {
  return std::log10(x);
}
double erf(double x) {
  return std::erf(x);
}
double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}
// PyTorch's gelu(approximate="tanh"), in its order of operations: -inf gives NaN (-inf * 0), as
// in PyTorch; finite values give no NaN (x + c x^3 never adds opposite infinities).
double gelu_tanh(double x) {
  constexpr double kSqrt2OverPi = 0.7978845608028654;  // sqrt(2 / pi)
  constexpr double kCubicCoeff = 0.044715;
  // 0.5 * x * (1 + tanh(u)) is x / (1 + exp(-2u)); the first cancels to 0 for u below -19 where
  // the value is still ~1e-17 (lazyfuse-fuzz seed 13102), the second keeps it.
  return x / (1.0 + std::exp(-2.0 * kSqrt2OverPi * (x + kCubicCoeff * x * x * x)));
}
double reciprocal(double x) {
  return 1.0 / x;
}
bool logical_not(int64_t x) {
  return !x;
}
bool isnan(double x) {
  return std::isnan(x);
}
bool isnan(int64_t) {
  return false;
}
bool isinf(double x) {
  return std::isinf(x);
}
bool isinf(int64_t) {
  return false;
}
bool isfinite(double x) {
  return std::isfinite(x);
}
bool isfinite(int64_t) {
  return true;
}
double cast(double x) {
  return x;
}
int64_t cast(int64_t x) {
  return x;
}

double add(double a, double b) {
  return a + b;
}
int64_t add(int64_t a, int64_t b) {
  return wrap_add(a, b);
}
double sub(double a, double b) {
  return a - b;
}
int64_t sub(int64_t a, int64_t b) {
  return wrap_sub(a, b);
}
double mul(double a, double b) {
  return a * b;
}
int64_t mul(int64_t a, int64_t b) {
  return wrap_mul(a, b);
}
double div(double a, double b) {
  return a / b;
}
double pow(double a, double b) {
  return std::pow(a, b);
}

// Exponentiation by squaring, wrapping like the hardware; a negative exponent gives the truncated
// reciprocal (0 unless the base is 1 or -1), as PyTorch's GPU kernels do.
int64_t pow(int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
    return 0;
  }
  int64_t result = 1;
  while (exponent > 0) {
    if (exponent & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exponent >>= 1;
  }
  return result;
}

// -0 is below +0, as in the GPU's max.NaN and min.NaN (and PyTorch's CUDA kernels).
double maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  return a == b ? (std::signbit(a) ? b : a) : std::max(a, b);
}
int64_t maximum(int64_t a, int64_t b) {
  return std::max(a, b);
}
double minimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  return a == b ? (std::signbit(a) ? a : b) : std::min(a, b);
}
int64_t minimum(int64_t a, int64_t b) {
  return std::min(a, b);
}
double fmod(double a, double b) {
  return std::fmod(a, b);
}
int64_t fmod(int64_t a, int64_t b) {
  return (b == 0 || b == -1) ? 0 : a % b;  // the least int64 over -1 overflows
}
double remainder(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}
int64_t remainder(int64_t a, int64_t b) {
  const int64_t mod = fmod(a, b);
  return (mod != 0 && ((b < 0) != (mod < 0))) ? mod + b : mod;
}
// The nearest integer to (a - fmod(a, b)) / b, as PyTorch's kernels compute it: exact where a / b
// rounded would land on the wrong side of an integer.
double floor_divide(double a, double b) {
  if (b == 0) return a / b;
  const double mod = std::fmod(a, b);
  double quotient = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) quotient -= 1;
  if (quotient == 0) return std::copysign(0.0, a / b);
  const double down = std::floor(quotient);
  return quotient - down > 0.5 ? down + 1 : down;
}
int64_t floor_divide(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return wrap_sub(0, a);
  const int64_t quotient = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? quotient - 1 : quotient;
}
double atan2(double y, double x) {
  return std::atan2(y, x);
}
double hypot(double a, double b) {
  return std::hypot(a, b);
}
double gelu_tanh_grad(double g, double x) {
  constexpr double c = 0.7978845608028654, k = 0.044715;
  const double t = std::tanh(c * (x + k * x * x * x));
  const double sech2 = 1 - t * t;
  // Where tanh saturates the second term is x * 0 without u', which overflows past 1e154; NaN
  // still at x = +-inf, as PyTorch's.
  const double du = sech2 == 0 ? 1 : c * (1 + 3 * k * x * x);
  return g * (0.5 * (1 + t) + 0.5 * x * sech2 * du);
}

// log(e^a + e^b) without overflow: the larger plus log1p of the smaller's ratio. Equal infinities
// give themselves (their difference would be NaN), as in PyTorch.
double logaddexp(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (std::isinf(a) && a == b) return a;
  const double larger = std::max(a, b), smaller = std::min(a, b);
  return larger + std::log1p(std::exp(smaller - larger));
}

bool eq(double a, double b) {
  return a == b;
}
bool eq(int64_t a, int64_t b) {
  return a == b;
}
bool ne(double a, double b) {
  return a != b;
}
bool ne(int64_t a, int64_t b) {
  return a != b;
}
bool lt(double a, double b) {
  return a < b;
}
bool lt(int64_t a, int64_t b) {
  return a < b;
}
bool le(double a, double b) {
  return a <= b;
}
bool le(int64_t a, int64_t b) {
  return a <= b;
}
bool gt(double a, double b) {
  return a > b;
}
bool gt(int64_t a, int64_t b) {
  return a > b;
}
bool ge(double a, double b) {
  return a >= b;
}
bool ge(int64_t a, int64_t b) {
  return a >= b;
}
bool logical_and(int64_t a, int64_t b) {
  return a && b;
}
bool logical_or(int64_t a, int64_t b) {
  return a || b;
}
bool logical_xor(int64_t a, int64_t b) {
  return (a != 0) != (b != 0);
}
// Bool operands arrive as 0 and 1, where these are logic. Computed in int64, an i32 shift gives
// the i32 one once wrapped: a count from 32 to 63 leaves no bit in the low half (or only the sign).
int64_t bitwise_and(int64_t a, int64_t b) {
  return a & b;
}
int64_t bitwise_or(int64_t a, int64_t b) {
  return a | b;
}
int64_t bitwise_xor(int64_t a, int64_t b) {
  return a ^ b;
}
int64_t bitwise_not(int64_t x) {
  return ~x;
}
int64_t bitwise_left_shift(int64_t a, int64_t b) {
  return (b < 0 || b >= 64) ? 0 : int64_t(std::uint64_t(a) << b);
}
int64_t bitwise_right_shift(int64_t a, int64_t b) {
  return a >> ((b < 0 || b >= 64) ? 63 : b);
}

double where(double condition, double a, double b) {
  return condition != 0 ? a : b;
}
int64_t where(int64_t condition, int64_t a, int64_t b) {
  return condition != 0 ? a : b;
}

// PyTorch's two-sided form: exact at both ends (weight 0 gives start, 1 gives end).
double lerp(double start, double end, double weight) {
  return std::fabs(weight) < 0.5 ? start + weight * (end - start)
                                 : end - (end - start) * (1.0 - weight);
}

}  // namespace lazy::ir::reference
