#include "ir/dtype_codec.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace lazy::ir {

namespace {

// A binary floating format: precision bits (with the implicit one), exponent range.
struct FloatFormat {
  int precision;
  int min_exp;  // exponent of the smallest normal
  int max_exp;
  int exp_bits;
};
constexpr FloatFormat kHalf{11, -14, 15, 5};
constexpr FloatFormat kBFloat{8, -126, 127, 8};

double largest_finite(const FloatFormat& f) {
  return std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.max_exp);
}

// Rounds once, directly from double: scaling by a power of two is exact, nearbyint rounds half
// to even, and below the normal range the quantum stays fixed (subnormals).
double round_to_format(double value, const FloatFormat& f) {
  if (!std::isfinite(value) || value == 0) return value;
  int exp = std::max(std::ilogb(value), f.min_exp);
  double quantum = std::ldexp(1.0, exp - (f.precision - 1));
  double rounded = std::nearbyint(value / quantum) * quantum;
  if (std::fabs(rounded) > largest_finite(f)) return std::copysign(INFINITY, value);
  return rounded;
}

std::uint16_t encode(double value, const FloatFormat& f) {
  int mantissa_bits = f.precision - 1;
  std::uint16_t sign = std::signbit(value) ? std::uint16_t(1u << (mantissa_bits + f.exp_bits)) : 0;
  int exp_all_ones = (1 << f.exp_bits) - 1;
  if (std::isnan(value))
    return std::uint16_t(sign | (exp_all_ones << mantissa_bits) | (1 << (mantissa_bits - 1)));
  double r = std::fabs(round_to_format(value, f));
  if (std::isinf(r)) return std::uint16_t(sign | (exp_all_ones << mantissa_bits));
  if (r == 0) return sign;
  int exp = std::ilogb(r);
  if (exp < f.min_exp) {  // subnormal: the mantissa counts quanta of the smallest subnormal
    auto mantissa = std::uint16_t(std::ldexp(r, mantissa_bits - f.min_exp));
    return std::uint16_t(sign | mantissa);
  }
  auto mantissa = std::uint16_t(std::ldexp(r, mantissa_bits - exp) - (1 << mantissa_bits));
  auto biased = std::uint16_t(exp - f.min_exp + 1);
  return std::uint16_t(sign | (biased << mantissa_bits) | mantissa);
}

double decode(std::uint16_t bits, const FloatFormat& f) {
  int mantissa_bits = f.precision - 1;
  int exp_all_ones = (1 << f.exp_bits) - 1;
  bool negative = bits >> (mantissa_bits + f.exp_bits);
  int biased = (bits >> mantissa_bits) & exp_all_ones;
  int mantissa = bits & ((1 << mantissa_bits) - 1);
  double magnitude;
  if (biased == exp_all_ones) {
    magnitude = mantissa ? NAN : INFINITY;
  } else if (biased == 0) {
    magnitude = std::ldexp(double(mantissa), f.min_exp - mantissa_bits);
  } else {
    magnitude =
        std::ldexp(double(mantissa + (1 << mantissa_bits)), biased + f.min_exp - 1 - mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

template <class Int>
std::int64_t saturating_trunc(double value) {
  if (std::isnan(value)) return 0;
  constexpr double lo = double(std::numeric_limits<Int>::min());
  constexpr double hi = double(std::numeric_limits<Int>::max());
  if (value <= lo) return std::numeric_limits<Int>::min();
  if (value >= hi) return std::numeric_limits<Int>::max();
  return static_cast<std::int64_t>(std::trunc(value));
}

// Rounds an integer to `precision` significant bits, ties to even, in integer arithmetic. The
// result is exact in a double, so storing it rounds only once: going through double(value)
// first would round twice for integers past 2^53.
double round_int_to_precision(std::int64_t value, int precision) {
  std::uint64_t magnitude = value < 0 ? 0 - std::uint64_t(value) : std::uint64_t(value);
  int dropped = std::max(int(std::bit_width(magnitude)) - precision, 0);
  if (dropped > 0) {
    std::uint64_t rest = magnitude & ((std::uint64_t(1) << dropped) - 1);
    std::uint64_t half = std::uint64_t(1) << (dropped - 1);
    magnitude >>= dropped;
    if (rest > half || (rest == half && (magnitude & 1))) ++magnitude;
  }
  double rounded = std::ldexp(double(magnitude), dropped);
  return value < 0 ? -rounded : rounded;
}

}  // namespace

std::uint16_t double_to_f16_bits(double value) {
  return encode(value, kHalf);
}
std::uint16_t double_to_bf16_bits(double value) {
  return encode(value, kBFloat);
}
double f16_bits_to_double(std::uint16_t bits) {
  return decode(bits, kHalf);
}
double bf16_bits_to_double(std::uint16_t bits) {
  return decode(bits, kBFloat);
}

double largest_finite(DType dtype) {
  switch (dtype) {
    case DType::f16:
      return largest_finite(kHalf);
    case DType::bf16:
      return largest_finite(kBFloat);
    default:
      return std::numeric_limits<float>::max();
  }
}

double round_to_dtype(double value, DType dtype) {
  switch (dtype) {
    case DType::f32:
      return double(to_f32(value));
    case DType::f16:
      return round_to_format(value, kHalf);
    case DType::bf16:
      return round_to_format(value, kBFloat);
    case DType::i32:
      return double(saturating_trunc<std::int32_t>(value));
    case DType::i64:
      return double(saturating_trunc<std::int64_t>(value));
    case DType::bool_:
      return value != 0 ? 1.0 : 0.0;  // NaN != 0
  }
  return value;
}

std::int64_t wrap_to_dtype(std::int64_t value, DType dtype) {
  switch (dtype) {
    case DType::i32:
      return std::int32_t(std::uint32_t(std::uint64_t(value)));
    case DType::bool_:
      return value != 0;
    default:
      return value;
  }
}

float to_f32(double value) {
  constexpr double kMax = std::numeric_limits<float>::max();
  // Values past kMax that still round down to it are below kMax + half an ulp.
  constexpr double kRoundsToMax = kMax + 0x1p103;
  if (std::isfinite(value) && std::fabs(value) >= kRoundsToMax) {
    return std::copysign(std::numeric_limits<float>::infinity(), float(value > 0 ? 1 : -1));
  }
  return static_cast<float>(value);
}

std::int64_t float_to_integer_dtype(double value, DType dtype) {
  switch (dtype) {
    case DType::i32:
      return saturating_trunc<std::int32_t>(value);
    case DType::bool_:
      return value != 0;
    default:
      return saturating_trunc<std::int64_t>(value);
  }
}

// Through f32, as PyTorch converts an integer to f16 or bf16: two roundings, which for bf16 can
// differ from one (2^24 + 2^16 + 1 is 2^24, not 2^24 + 2^17).
double integer_to_float_dtype(std::int64_t value, DType dtype) {
  return round_to_dtype(round_int_to_precision(value, std::numeric_limits<float>::digits), dtype);
}

double double_to_float_dtype(double value, DType dtype) {
  return round_to_dtype(round_to_dtype(value, DType::f32), dtype);
}

double scalar_as_float(const Scalar& value, DType dtype) {
  if (value.kind() == Scalar::Kind::floating)
    return double_to_float_dtype(value.to_double(), dtype);
  return integer_to_float_dtype(value.to_int(), dtype);
}

std::int64_t scalar_as_int(const Scalar& value, DType dtype) {
  if (value.kind() == Scalar::Kind::floating)
    return float_to_integer_dtype(value.to_double(), dtype);
  return wrap_to_dtype(value.to_int(), dtype);
}

double load_as_double(const void* data, DType dtype, std::int64_t index) {
  switch (dtype) {
    case DType::f32:
      return static_cast<const float*>(data)[index];
    case DType::f16:
      return f16_bits_to_double(static_cast<const std::uint16_t*>(data)[index]);
    case DType::bf16:
      return bf16_bits_to_double(static_cast<const std::uint16_t*>(data)[index]);
    default:
      return double(load_as_int(data, dtype, index));
  }
}

std::int64_t load_as_int(const void* data, DType dtype, std::int64_t index) {
  switch (dtype) {
    case DType::i32:
      return static_cast<const std::int32_t*>(data)[index];
    case DType::i64:
      return static_cast<const std::int64_t*>(data)[index];
    case DType::bool_:
      return static_cast<const std::uint8_t*>(data)[index] != 0;
    // Not through round_to_dtype: its double cannot hold the saturated i64 maximum.
    default:
      return saturating_trunc<std::int64_t>(load_as_double(data, dtype, index));
  }
}

void store_double(void* data, DType dtype, std::int64_t index, double value) {
  switch (dtype) {
    case DType::f32:
      static_cast<float*>(data)[index] = to_f32(value);
      return;
    case DType::f16:
      static_cast<std::uint16_t*>(data)[index] = double_to_f16_bits(value);
      return;
    case DType::bf16:
      static_cast<std::uint16_t*>(data)[index] = double_to_bf16_bits(value);
      return;
    case DType::i32:
      static_cast<std::int32_t*>(data)[index] = std::int32_t(saturating_trunc<std::int32_t>(value));
      return;
    case DType::i64:
      static_cast<std::int64_t*>(data)[index] = saturating_trunc<std::int64_t>(value);
      return;
    case DType::bool_:
      static_cast<std::uint8_t*>(data)[index] = value != 0;
      return;
  }
}

void store_int(void* data, DType dtype, std::int64_t index, std::int64_t value) {
  switch (dtype) {
    case DType::i32:
      static_cast<std::int32_t*>(data)[index] = std::int32_t(wrap_to_dtype(value, dtype));
      return;
    case DType::i64:
      static_cast<std::int64_t*>(data)[index] = value;
      return;
    case DType::bool_:
      static_cast<std::uint8_t*>(data)[index] = value != 0;
      return;
    default:
      store_double(data, dtype, index, integer_to_float_dtype(value, dtype));
      return;
  }
}

}  // namespace lazy::ir
