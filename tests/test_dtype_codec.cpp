// The dtype codec: f16 and bf16 bits, the rounding a store into each dtype does, integer
// wrapping and saturating truncation, and bool.
#include "ir/dtype_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using lazy::DType;
namespace ir = lazy::ir;

double pow2(int e) {
  return std::ldexp(1.0, e);
}

constexpr double kF16Max = 65504.0;
constexpr double kBF16Max = 3.38953138925153547590470800371487866880e38;  // (2 - 2^-7) * 2^127

// A 16-bit format under test, as plain functions of bits.
struct HalfFormat {
  const char* name;
  std::uint16_t (*encode)(double);
  double (*decode)(std::uint16_t);
  int mantissa_bits;
};
const HalfFormat kF16{"f16", ir::double_to_f16_bits, ir::f16_bits_to_double, 10};
const HalfFormat kBF16{"bf16", ir::double_to_bf16_bits, ir::bf16_bits_to_double, 7};

bool is_nan_bits(std::uint16_t bits, const HalfFormat& f) {
  std::uint16_t exponent_mask = std::uint16_t(0x7fff & ~((1u << f.mantissa_bits) - 1));
  return (bits & exponent_mask) == exponent_mask && (bits & ((1u << f.mantissa_bits) - 1)) != 0;
}

// ---- f16 and bf16 bits ----

TEST(HalfBits, EveryNonNaNF16PatternRoundTrips) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    if (is_nan_bits(std::uint16_t(bits), kF16)) continue;
    double value = ir::f16_bits_to_double(std::uint16_t(bits));
    ASSERT_EQ(ir::double_to_f16_bits(value), bits) << std::hex << bits;
  }
}

TEST(HalfBits, EveryNonNaNBF16PatternRoundTrips) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    if (is_nan_bits(std::uint16_t(bits), kBF16)) continue;
    double value = ir::bf16_bits_to_double(std::uint16_t(bits));
    ASSERT_EQ(ir::double_to_bf16_bits(value), bits) << std::hex << bits;
  }
}

TEST(HalfBits, BF16IsTheTopHalfOfAnF32) {
  std::mt19937 gen(1);
  for (int trial = 0; trial < 10000; ++trial) {
    auto bits = std::uint16_t(gen());
    if (is_nan_bits(bits, kBF16)) continue;
    std::uint32_t f32_bits = std::uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &f32_bits, sizeof f);
    ASSERT_EQ(ir::bf16_bits_to_double(bits), double(f)) << std::hex << bits;
  }
}

TEST(HalfBits, F16DecodesKnownPatterns) {
  EXPECT_EQ(ir::f16_bits_to_double(0x3c00), 1.0);
  EXPECT_EQ(ir::f16_bits_to_double(0xc000), -2.0);
  EXPECT_EQ(ir::f16_bits_to_double(0x3555), 0.333251953125);
  EXPECT_EQ(ir::f16_bits_to_double(0x7bff), kF16Max);
  EXPECT_EQ(ir::f16_bits_to_double(0x0400), pow2(-14));
  EXPECT_EQ(ir::f16_bits_to_double(0x03ff), 1023 * pow2(-24));
  EXPECT_EQ(ir::f16_bits_to_double(0x0001), pow2(-24));
  EXPECT_EQ(ir::f16_bits_to_double(0x7c00), INFINITY);
  EXPECT_EQ(ir::f16_bits_to_double(0xfc00), -INFINITY);
  EXPECT_TRUE(std::signbit(ir::f16_bits_to_double(0x8000)));
}

TEST(HalfBits, BF16DecodesKnownPatterns) {
  EXPECT_EQ(ir::bf16_bits_to_double(0x3f80), 1.0);
  EXPECT_EQ(ir::bf16_bits_to_double(0xc040), -3.0);
  EXPECT_EQ(ir::bf16_bits_to_double(0x7f7f), kBF16Max);
  EXPECT_EQ(ir::bf16_bits_to_double(0x0080), pow2(-126));
  EXPECT_EQ(ir::bf16_bits_to_double(0x0001), pow2(-133));
  EXPECT_EQ(ir::bf16_bits_to_double(0x7f80), INFINITY);
  EXPECT_EQ(ir::bf16_bits_to_double(0xff80), -INFINITY);
}

TEST(HalfBits, EncodingKeepsTheSignOfZero) {
  EXPECT_EQ(ir::double_to_f16_bits(0.0), 0x0000);
  EXPECT_EQ(ir::double_to_f16_bits(-0.0), 0x8000);
  EXPECT_EQ(ir::double_to_bf16_bits(-0.0), 0x8000);
}

// ---- rounding to nearest ----

// Checks that `value` encodes to a nearest representable neighbour, and to the even one on a tie.
void expect_nearest(const HalfFormat& f, double value) {
  std::uint16_t bits = f.encode(value);
  double got = f.decode(bits);
  // The neighbours one unit below and above in magnitude (same sign).
  double below = f.decode(std::uint16_t(bits - 1));
  double above = f.decode(std::uint16_t(bits + 1));
  double error = std::fabs(got - value);
  SCOPED_TRACE(testing::Message() << f.name << " of " << value << " gave " << got);
  if ((bits & 0x7fff) != 0) EXPECT_LE(error, std::fabs(below - value));
  EXPECT_LE(error, std::fabs(above - value));
  if (error == std::fabs(below - value) || error == std::fabs(above - value)) {
    EXPECT_EQ(bits & 1, 0) << "a tie must go to the even mantissa";
  }
}

TEST(Rounding, F16PicksTheNearestValue) {
  std::mt19937_64 gen(2);
  std::uniform_real_distribution<double> magnitude(-30.0, 16.0);  // log2 of |value|
  for (int trial = 0; trial < 20000; ++trial) {
    double value = std::exp2(magnitude(gen));
    if (value >= kF16Max) continue;
    expect_nearest(kF16, gen() % 2 ? value : -value);
  }
}

TEST(Rounding, BF16PicksTheNearestValue) {
  std::mt19937_64 gen(3);
  std::uniform_real_distribution<double> magnitude(-140.0, 127.0);
  for (int trial = 0; trial < 20000; ++trial) {
    double value = std::exp2(magnitude(gen));
    expect_nearest(kBF16, gen() % 2 ? value : -value);
  }
}

TEST(Rounding, F16TiesGoToEven) {
  EXPECT_EQ(ir::double_to_f16_bits(1 + pow2(-11)), 0x3c00);      // 1 (even) vs 1 + 2^-10
  EXPECT_EQ(ir::double_to_f16_bits(1 + 3 * pow2(-11)), 0x3c02);  // 1 + 2^-10 vs 1 + 2^-9 (even)
  EXPECT_EQ(ir::double_to_f16_bits(-(1 + pow2(-11))), 0xbc00);
  EXPECT_EQ(ir::round_to_dtype(2049.0, lazy::f16), 2048.0);
  EXPECT_EQ(ir::round_to_dtype(2051.0, lazy::f16), 2052.0);
  EXPECT_EQ(ir::round_to_dtype(-2051.0, lazy::f16), -2052.0);
}

TEST(Rounding, F16JustOffATieGoesToTheNearer) {
  EXPECT_EQ(ir::double_to_f16_bits(1 + pow2(-11) + pow2(-30)), 0x3c01);
  EXPECT_EQ(ir::double_to_f16_bits(1 + 3 * pow2(-11) - pow2(-30)), 0x3c01);
}

TEST(Rounding, BF16TiesGoToEven) {
  EXPECT_EQ(ir::double_to_bf16_bits(1 + pow2(-8)), 0x3f80);
  EXPECT_EQ(ir::double_to_bf16_bits(1 + 3 * pow2(-8)), 0x3f82);
  EXPECT_EQ(ir::round_to_dtype(257.0, lazy::bf16), 256.0);
  EXPECT_EQ(ir::round_to_dtype(259.0, lazy::bf16), 260.0);
  EXPECT_EQ(ir::round_to_dtype(257.0 + pow2(-20), lazy::bf16), 258.0);
}

TEST(Rounding, RoundToDTypeAgreesWithTheBits) {
  std::mt19937_64 gen(4);
  std::uniform_real_distribution<double> value_dist(-70000.0, 70000.0);
  for (int trial = 0; trial < 10000; ++trial) {
    double value = value_dist(gen) * std::exp2(-double(gen() % 30));
    EXPECT_EQ(ir::round_to_dtype(value, lazy::f16),
              ir::f16_bits_to_double(ir::double_to_f16_bits(value)))
        << value;
    EXPECT_EQ(ir::round_to_dtype(value, lazy::bf16),
              ir::bf16_bits_to_double(ir::double_to_bf16_bits(value)))
        << value;
  }
}

TEST(Rounding, F32IsTheFloatConversion) {
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> dist(-1e6, 1e6);
  for (int trial = 0; trial < 1000; ++trial) {
    double value = dist(gen);
    ASSERT_EQ(ir::round_to_dtype(value, lazy::f32), double(float(value))) << value;
  }
}

// ---- subnormals ----

TEST(Subnormals, F16KeepsMultiplesOfTwoToTheMinus24) {
  EXPECT_EQ(ir::double_to_f16_bits(pow2(-24)), 0x0001);
  EXPECT_EQ(ir::double_to_f16_bits(-pow2(-24)), 0x8001);
  EXPECT_EQ(ir::double_to_f16_bits(1023 * pow2(-24)), 0x03ff);
  EXPECT_EQ(ir::round_to_dtype(5 * pow2(-24), lazy::f16), 5 * pow2(-24));
}

TEST(Subnormals, F16RoundsToNearestEvenQuantum) {
  EXPECT_EQ(ir::double_to_f16_bits(pow2(-25)), 0x0000);              // tie: 0 is even
  EXPECT_EQ(ir::double_to_f16_bits(pow2(-25) + pow2(-40)), 0x0001);  // past the tie
  EXPECT_EQ(ir::double_to_f16_bits(3 * pow2(-25)), 0x0002);          // tie: 2 is even
  EXPECT_EQ(ir::double_to_f16_bits(1.25 * pow2(-24)), 0x0001);
  EXPECT_EQ(ir::double_to_f16_bits(1023.5 * pow2(-24)), 0x0400);  // up into the normals
  EXPECT_EQ(ir::round_to_dtype(pow2(-26), lazy::f16), 0.0);
}

TEST(Subnormals, BF16KeepsMultiplesOfTwoToTheMinus133) {
  EXPECT_EQ(ir::double_to_bf16_bits(pow2(-133)), 0x0001);
  EXPECT_EQ(ir::double_to_bf16_bits(pow2(-134)), 0x0000);
  EXPECT_EQ(ir::double_to_bf16_bits(3 * pow2(-134)), 0x0002);
  EXPECT_EQ(ir::double_to_bf16_bits(127 * pow2(-133)), 0x007f);
}

// ---- overflow and the largest finite values ----

TEST(Overflow, F16MaxFiniteIs65504) {
  EXPECT_EQ(ir::double_to_f16_bits(kF16Max), 0x7bff);
  EXPECT_EQ(ir::round_to_dtype(kF16Max, lazy::f16), kF16Max);
  EXPECT_EQ(ir::round_to_dtype(65519.99, lazy::f16), kF16Max);  // below the midpoint to 2^16
  EXPECT_EQ(ir::round_to_dtype(-65519.99, lazy::f16), -kF16Max);
}

TEST(Overflow, F16FromTheMidpointAboveMaxIsInfinity) {
  EXPECT_EQ(ir::double_to_f16_bits(65520.0), 0x7c00);
  EXPECT_EQ(ir::double_to_f16_bits(-65520.0), 0xfc00);
  EXPECT_EQ(ir::round_to_dtype(1e6, lazy::f16), INFINITY);
  EXPECT_EQ(ir::round_to_dtype(-1e300, lazy::f16), -INFINITY);
}

TEST(Overflow, BF16MaxFiniteAndInfinity) {
  EXPECT_EQ(ir::double_to_bf16_bits(kBF16Max), 0x7f7f);
  double midpoint = (2 - pow2(-8)) * pow2(127);
  EXPECT_EQ(ir::round_to_dtype(midpoint * (1 - 1e-9), lazy::bf16), kBF16Max);
  EXPECT_EQ(ir::double_to_bf16_bits(midpoint), 0x7f80);
  EXPECT_EQ(ir::round_to_dtype(1e39, lazy::bf16), INFINITY);
  EXPECT_EQ(ir::round_to_dtype(-1e39, lazy::bf16), -INFINITY);
}

TEST(Overflow, F32PastItsMaxIsInfinity) {
  EXPECT_EQ(ir::round_to_dtype(1e39, lazy::f32), INFINITY);
  EXPECT_EQ(ir::round_to_dtype(double(std::numeric_limits<float>::max()), lazy::f32),
            double(std::numeric_limits<float>::max()));
}

TEST(Overflow, InfinityStaysInfinity) {
  EXPECT_EQ(ir::double_to_f16_bits(INFINITY), 0x7c00);
  EXPECT_EQ(ir::double_to_bf16_bits(-INFINITY), 0xff80);
  EXPECT_EQ(ir::round_to_dtype(INFINITY, lazy::f16), INFINITY);
}

// ---- NaN ----

TEST(NaN, EncodesAsANaNPattern) {
  EXPECT_TRUE(is_nan_bits(ir::double_to_f16_bits(NAN), kF16));
  EXPECT_TRUE(is_nan_bits(ir::double_to_bf16_bits(NAN), kBF16));
  EXPECT_TRUE(is_nan_bits(ir::double_to_f16_bits(-NAN), kF16));
}

TEST(NaN, DecodesFromEveryNaNPattern) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    if (is_nan_bits(std::uint16_t(bits), kF16))
      ASSERT_TRUE(std::isnan(ir::f16_bits_to_double(std::uint16_t(bits)))) << std::hex << bits;
    if (is_nan_bits(std::uint16_t(bits), kBF16))
      ASSERT_TRUE(std::isnan(ir::bf16_bits_to_double(std::uint16_t(bits)))) << std::hex << bits;
  }
}

TEST(NaN, StaysNaNInEveryFloatingDType) {
  for (DType dtype : {lazy::f32, lazy::f16, lazy::bf16})
    EXPECT_TRUE(std::isnan(ir::round_to_dtype(NAN, dtype))) << lazy::dtype_name(dtype);
}

TEST(NaN, GivesZeroInIntegerDTypes) {
  EXPECT_EQ(ir::round_to_dtype(NAN, lazy::i32), 0.0);
  EXPECT_EQ(ir::round_to_dtype(NAN, lazy::i64), 0.0);
  std::int32_t i32 = 7;
  ir::store_double(&i32, lazy::i32, 0, NAN);
  EXPECT_EQ(i32, 0);
  std::int64_t i64 = 7;
  ir::store_double(&i64, lazy::i64, 0, NAN);
  EXPECT_EQ(i64, 0);
}

// ---- integers ----

TEST(Integers, I32WrapsAsTwosComplement) {
  EXPECT_EQ(ir::wrap_to_dtype(std::int64_t(1) << 31, lazy::i32), -(std::int64_t(1) << 31));
  EXPECT_EQ(ir::wrap_to_dtype((std::int64_t(1) << 32) + 5, lazy::i32), 5);
  EXPECT_EQ(ir::wrap_to_dtype(-(std::int64_t(1) << 31) - 1, lazy::i32), 2147483647);
  EXPECT_EQ(ir::wrap_to_dtype(-1, lazy::i32), -1);
}

TEST(Integers, I32WrapKeepsTheValueModulo2To32) {
  std::mt19937_64 gen(6);
  for (int trial = 0; trial < 10000; ++trial) {
    auto value = std::int64_t(gen());
    std::int64_t wrapped = ir::wrap_to_dtype(value, lazy::i32);
    ASSERT_GE(wrapped, std::numeric_limits<std::int32_t>::min());
    ASSERT_LE(wrapped, std::numeric_limits<std::int32_t>::max());
    ASSERT_EQ((std::uint64_t(value) - std::uint64_t(wrapped)) % (std::uint64_t(1) << 32), 0u)
        << value;
  }
}

TEST(Integers, I64WrapIsTheIdentity) {
  std::mt19937_64 gen(7);
  for (int trial = 0; trial < 100; ++trial) {
    auto value = std::int64_t(gen());
    ASSERT_EQ(ir::wrap_to_dtype(value, lazy::i64), value);
  }
}

TEST(Integers, StoreIntWrapsIntoI32) {
  std::int32_t out[2] = {};
  ir::store_int(out, lazy::i32, 0, (std::int64_t(1) << 32) + 9);
  ir::store_int(out, lazy::i32, 1, std::int64_t(3) << 31);
  EXPECT_EQ(out[0], 9);
  EXPECT_EQ(out[1], std::numeric_limits<std::int32_t>::min());
}

TEST(FloatToInt, TruncatesTowardZero) {
  std::mt19937_64 gen(8);
  std::uniform_real_distribution<double> dist(-1e6, 1e6);
  for (int trial = 0; trial < 10000; ++trial) {
    double value = dist(gen);
    ASSERT_EQ(ir::round_to_dtype(value, lazy::i32), std::trunc(value)) << value;
    ASSERT_EQ(ir::round_to_dtype(value, lazy::i64), std::trunc(value)) << value;
  }
  EXPECT_EQ(ir::round_to_dtype(-0.999, lazy::i32), 0.0);
  EXPECT_EQ(ir::round_to_dtype(2.5, lazy::i64), 2.0);
}

TEST(FloatToInt, SaturatesAtTheI32Range) {
  EXPECT_EQ(ir::round_to_dtype(3e9, lazy::i32), 2147483647.0);
  EXPECT_EQ(ir::round_to_dtype(-3e9, lazy::i32), -2147483648.0);
  EXPECT_EQ(ir::round_to_dtype(2147483647.9, lazy::i32), 2147483647.0);
  EXPECT_EQ(ir::round_to_dtype(INFINITY, lazy::i32), 2147483647.0);
  EXPECT_EQ(ir::round_to_dtype(-INFINITY, lazy::i32), -2147483648.0);
}

TEST(FloatToInt, SaturatesAtTheI64Range) {
  std::int64_t out[4] = {};
  ir::store_double(out, lazy::i64, 0, 1e20);
  ir::store_double(out, lazy::i64, 1, -1e20);
  ir::store_double(out, lazy::i64, 2, INFINITY);
  ir::store_double(out, lazy::i64, 3, pow2(62) + pow2(40));
  EXPECT_EQ(out[0], std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(out[1], std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(out[2], std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(out[3], (std::int64_t(1) << 62) + (std::int64_t(1) << 40));
}

TEST(FloatToInt, StoreDoubleIntoI32Saturates) {
  std::int32_t out[3] = {};
  ir::store_double(out, lazy::i32, 0, 5e9);
  ir::store_double(out, lazy::i32, 1, -5e9);
  ir::store_double(out, lazy::i32, 2, -7.75);
  EXPECT_EQ(out[0], std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(out[1], std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(out[2], -7);
}

TEST(FloatToInt, LoadAsIntOfAHalfTruncates) {
  std::uint16_t halves[3] = {ir::double_to_f16_bits(2.75), ir::double_to_f16_bits(-2.75),
                             ir::double_to_f16_bits(INFINITY)};
  EXPECT_EQ(ir::load_as_int(halves, lazy::f16, 0), 2);
  EXPECT_EQ(ir::load_as_int(halves, lazy::f16, 1), -2);
  EXPECT_EQ(ir::load_as_int(halves, lazy::f16, 2), std::numeric_limits<std::int64_t>::max());
}

// ---- integers to floating dtypes ----

TEST(IntToFloat, StoreIntRoundsOnceToF32) {
  // 2^62 + 2^38 + 1 is just above the midpoint of f32 neighbours 2^62 and 2^62 + 2^39; a trip
  // through double lands on the midpoint and would then round to even (2^62).
  float out[2] = {};
  ir::store_int(out, lazy::f32, 0, (std::int64_t(1) << 62) + (std::int64_t(1) << 38) + 1);
  ir::store_int(out, lazy::f32, 1, -((std::int64_t(1) << 62) + (std::int64_t(1) << 38) + 1));
  EXPECT_EQ(double(out[0]), pow2(62) + pow2(39));
  EXPECT_EQ(double(out[1]), -(pow2(62) + pow2(39)));
}

// PyTorch converts an integer to bf16 through f32: 2^62 + 2^54 + 1 is 2^62 + 2^54 in f32, a tie
// in bf16 that goes to even (2^62), where one rounding would give 2^62 + 2^55. Found in review.
TEST(IntToFloat, StoreIntRoundsToBF16ThroughF32AsPyTorch) {
  std::uint16_t out[5] = {};
  ir::store_int(out, lazy::bf16, 0, (std::int64_t(1) << 62) + (std::int64_t(1) << 54) + 1);
  ir::store_int(out, lazy::bf16, 1, 257);
  ir::store_int(out, lazy::bf16, 2, std::numeric_limits<std::int64_t>::min());
  ir::store_int(out, lazy::bf16, 3, 16842753);  // 2^24 + 2^16 + 1
  ir::store_int(out, lazy::bf16, 4, -16842753);
  EXPECT_EQ(ir::bf16_bits_to_double(out[0]), pow2(62));
  EXPECT_EQ(ir::bf16_bits_to_double(out[1]), 256.0);
  EXPECT_EQ(ir::bf16_bits_to_double(out[2]), -pow2(63));
  EXPECT_EQ(ir::bf16_bits_to_double(out[3]), pow2(24));
  EXPECT_EQ(ir::bf16_bits_to_double(out[4]), -pow2(24));
  EXPECT_EQ(ir::integer_to_float_dtype(16842753, lazy::bf16), pow2(24));
}

TEST(IntToFloat, StoreIntIntoF16RoundsAndOverflows) {
  std::uint16_t out[3] = {};
  ir::store_int(out, lazy::f16, 0, 2049);
  ir::store_int(out, lazy::f16, 1, 65520);
  ir::store_int(out, lazy::f16, 2, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(ir::f16_bits_to_double(out[0]), 2048.0);
  EXPECT_EQ(ir::f16_bits_to_double(out[1]), INFINITY);
  EXPECT_EQ(ir::f16_bits_to_double(out[2]), INFINITY);
}

TEST(IntToFloat, StoreIntIsExactForSmallIntegers) {
  std::mt19937 gen(9);
  std::uniform_int_distribution<std::int64_t> dist(-(1 << 24), 1 << 24);
  float out[1];
  for (int trial = 0; trial < 1000; ++trial) {
    std::int64_t value = dist(gen);
    ir::store_int(out, lazy::f32, 0, value);
    ASSERT_EQ(double(out[0]), double(value));
  }
}

// ---- bool ----

TEST(Bool, AnyNonZeroValueIsTrue) {
  EXPECT_EQ(ir::round_to_dtype(0.5, lazy::bool_), 1.0);
  EXPECT_EQ(ir::round_to_dtype(-1e-300, lazy::bool_), 1.0);
  EXPECT_EQ(ir::round_to_dtype(0.0, lazy::bool_), 0.0);
  EXPECT_EQ(ir::round_to_dtype(-0.0, lazy::bool_), 0.0);
  EXPECT_EQ(ir::round_to_dtype(NAN, lazy::bool_), 1.0);
  EXPECT_EQ(ir::wrap_to_dtype(-7, lazy::bool_), 1);
  EXPECT_EQ(ir::wrap_to_dtype(std::int64_t(1) << 40, lazy::bool_), 1);
  EXPECT_EQ(ir::wrap_to_dtype(0, lazy::bool_), 0);
}

TEST(Bool, StoresOneByteHoldingZeroOrOne) {
  std::uint8_t bytes[4] = {9, 9, 9, 9};
  ir::store_double(bytes, lazy::bool_, 0, 0.25);
  ir::store_double(bytes, lazy::bool_, 1, 0.0);
  ir::store_int(bytes, lazy::bool_, 2, 256);
  ir::store_int(bytes, lazy::bool_, 3, 0);
  EXPECT_EQ(bytes[0], 1);
  EXPECT_EQ(bytes[1], 0);
  EXPECT_EQ(bytes[2], 1);
  EXPECT_EQ(bytes[3], 0);
}

TEST(Bool, LoadsAnyNonZeroByteAsOne) {
  std::uint8_t bytes[3] = {0, 2, 255};
  EXPECT_EQ(ir::load_as_int(bytes, lazy::bool_, 0), 0);
  EXPECT_EQ(ir::load_as_int(bytes, lazy::bool_, 1), 1);
  EXPECT_EQ(ir::load_as_double(bytes, lazy::bool_, 2), 1.0);
}

// ---- loads and stores ----

TEST(LoadStore, HalfStoresRoundAndLoadsReadBack) {
  std::mt19937_64 gen(10);
  std::uniform_real_distribution<double> dist(-100.0, 100.0);
  std::vector<std::uint16_t> halves(64);
  std::vector<double> values(64);
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = dist(gen);
    ir::store_double(halves.data(), lazy::f16, std::int64_t(i), values[i]);
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    double got = ir::load_as_double(halves.data(), lazy::f16, std::int64_t(i));
    EXPECT_EQ(got, ir::round_to_dtype(values[i], lazy::f16));
    EXPECT_NEAR(got, values[i], std::fabs(values[i]) * pow2(-11));
  }
}

TEST(LoadStore, IntegerElementsWidenExactly) {
  std::int32_t i32[2] = {-2147483647 - 1, 123456789};
  std::int64_t i64[1] = {(std::int64_t(1) << 62) + 1};
  EXPECT_EQ(ir::load_as_int(i32, lazy::i32, 0), -2147483648LL);
  EXPECT_EQ(ir::load_as_double(i32, lazy::i32, 1), 123456789.0);
  EXPECT_EQ(ir::load_as_int(i64, lazy::i64, 0), (std::int64_t(1) << 62) + 1);
}

}  // namespace
