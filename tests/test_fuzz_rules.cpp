// The fuzzer's value rules (tools/fuzz/value_rules.h, reduction_rules.h, smooth_function_rules.h):
// what each op does to the bounds the fuzzer keeps, checked against sampled values, and the
// rules' own regressions, where bounds that missed the true value made the fuzzer report a
// failure that the reference and the GPU did not have.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include <lazy/lazy.h>

#include "ir/trace.h"
#include "tools/fuzz/bounds.h"
#include "tools/fuzz/builder.h"
#include "tools/fuzz/data_bounds.h"
#include "tools/fuzz/generator.h"
#include "tools/fuzz/reduction_rules.h"
#include "tools/fuzz/smooth_function_rules.h"
#include "tools/fuzz/value_rules.h"

namespace {

using namespace lazy::fuzz;
using lazy::DType;
using lazy::Tensor;

TEST(FuzzBounds, FitsKnowsEachDtypesSignificand) {
  EXPECT_TRUE(fits(lazy::DType::f16, -2048, 2048, 0));
  EXPECT_FALSE(fits(lazy::DType::f16, 0, 2049, 0));  // 2049 is not an f16
  EXPECT_TRUE(fits(lazy::DType::bf16, 0, 1.5, 1));
  EXPECT_FALSE(fits(lazy::DType::bf16, 0, 3, 7));  // 3 * 2^7 needs 9 bits
  EXPECT_TRUE(fits(lazy::DType::f32, 0, 3, 21));
  EXPECT_FALSE(fits(lazy::DType::f32, 0, 1, kNoQuantum));
  EXPECT_FALSE(fits(lazy::DType::i32, 0, 1, 1));  // halves are not integers
}

TEST(FuzzBounds, UlpIsTheSpacingAtAMagnitude) {
  EXPECT_EQ(ulp(lazy::DType::f32, 1.0), 0x1p-23);
  EXPECT_EQ(ulp(lazy::DType::f16, 1000.0), 0.5);
  EXPECT_EQ(ulp(lazy::DType::bf16, 1.0), 0x1p-7);
  EXPECT_EQ(ulp(lazy::DType::i64, 1e6), 0.0);
}

// Values a backend may hold for a tensor with bounds `b`: f32 values within b.err of the exact
// value `exact`, which lies in [b.lo, b.hi] (inexact bounds) or is an f32 value (exact ones).
struct Sample {
  double exact;
  float held;
};
Sample sample(const Bounds& b, std::uint64_t& state) {
  auto uniform = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) * 0x1p-53;
  };
  double u = uniform();
  if (u < 0.1) u = 0;  // the box's edges, where the extremes are
  if (u > 0.9) u = 1;
  Sample s{double(float(b.lo + (b.hi - b.lo) * u)), 0};
  s.exact = std::clamp(s.exact, b.lo, b.hi);
  s.held = float(s.exact + (2 * uniform() - 1) * b.err);
  if (!(std::abs(double(s.held) - s.exact) <= b.err)) s.held = float(s.exact);
  if (double(s.held) != s.exact && b.err == 0) s.held = float(s.exact), s.exact = s.held;
  return s;
}

// f32 versions of the device functions (nvrtc_templates/lz_pointwise.cuh) on the host.
float logaddexp_f32(float a, float b) {
  if (std::isinf(a) && a == b) return a;
  return std::fmax(a, b) + std::log1p(std::exp(-std::fabs(a - b)));
}
float lerp_f32(float s, float e, float w) {
  return std::fabs(w) < 0.5f ? s + w * (e - s) : e - (e - s) * (1.0f - w);
}
double logaddexp_exact(double a, double b) {
  double m = std::max(a, b);
  return m + std::log1p(std::exp(std::min(a, b) - m));
}

// Every sampled f32 result lies within the rule's error of the exact value, which lies in range.
void expect_binary_rule_holds(const char* op, std::function<float(float, float)> device,
                              double (*exact)(double, double), const Bounds& a, const Bounds& b) {
  const Operand x{a, lazy::DType::f32}, y{b, lazy::DType::f32};
  const Bounds r = binary_rule(op, x, y, lazy::DType::f32, lazy::DType::f32);
  std::uint64_t state = 12345;
  for (int k = 0; k < 4000; ++k) {
    Sample sa = sample(a, state), sb = sample(b, state);
    double want = exact(sa.exact, sb.exact);
    double got = device(sa.held, sb.held);
    ASSERT_LE(std::abs(got - want), r.err) << op << "(" << sa.held << ", " << sb.held << ")";
    ASSERT_GE(want, r.lo - 1e-12) << op;
    ASSERT_LE(want, r.hi + 1e-12) << op;
  }
}

Bounds inexact(double lo, double hi, double err) {
  return Bounds{lo, hi, err, kNoQuantum};
}

TEST(FuzzSmoothRules, Atan2ErrorFollowsTheSlopeOneOverTheRadius) {
  auto device = [](float y, float x) { return std::atan2(y, x); };
  auto exact = [](double y, double x) { return std::atan2(y, x); };
  expect_binary_rule_holds("atan2", device, exact, inexact(-1, 1, 1e-3), inexact(0.25, 4, 1e-3));
  expect_binary_rule_holds("atan2", device, exact, inexact(0.5, 3, 1e-2), inexact(-3, 3, 1e-2));
  expect_binary_rule_holds("atan2", device, exact, inexact(-3, -0.1, 0), inexact(-2, -1, 0));
  expect_binary_rule_holds("atan2", device, exact, inexact(-2, 2, 0), inexact(0x1p-20, 1, 0));
  const Operand y{inexact(-1, 1, 1e-3), lazy::DType::f32};
  const Operand x{inexact(0.25, 4, 1e-3), lazy::DType::f32};
  Bounds r = binary_rule("atan2", y, x, lazy::DType::f32, lazy::DType::f32);
  EXPECT_LT(r.err, 1e-3 / 0.249 * 1.5);
  EXPECT_GT(r.err, 1e-3 / 0.251 * 1.4);  // hypot(1e-3, 1e-3) / (0.25 - 1e-3)
}

TEST(FuzzSmoothRules, Atan2RejectsTheBranchCutAndTheOrigin) {
  auto rule = [](Bounds y, Bounds x) {
    return binary_rule("atan2", {y, lazy::DType::f32}, {x, lazy::DType::f32}, lazy::DType::f32,
                       lazy::DType::f32);
  };
  // y may be zero (or -0) where x is negative: pi or -pi by the zero's sign.
  EXPECT_THROW(rule(inexact(-1, 1, 0), inexact(-2, -1, 0)), StepRejected);
  EXPECT_THROW(rule(inexact(0, 1, 0), inexact(-2, 0, 0)), StepRejected);
  Bounds positive_special = inexact(0.5, 1, 0);
  positive_special.special = true;  // holds -0
  EXPECT_THROW(rule(positive_special, inexact(-2, -1, 0)), StepRejected);
  // An inexact y near 0 may cross it: the cut again, though its range is positive.
  EXPECT_THROW(rule(inexact(1e-3, 1, 2e-3), inexact(-2, -1, 0)), StepRejected);
  // Inexact arguments near the origin: the slope is unbounded.
  EXPECT_THROW(rule(inexact(-1, 1, 1e-4), inexact(1e-3, 1, 1e-4)), StepRejected);
  // Off the cut: accepted, and within [-pi, pi].
  Bounds r = rule(inexact(-1, 1, 0), inexact(1, 2, 0));
  EXPECT_GE(r.lo, -M_PI / 2);
  EXPECT_LE(r.hi, M_PI / 2);
  EXPECT_NO_THROW(rule(inexact(0.5, 1, 0), inexact(-2, 2, 0)));
}

// f32 versions of lz_floor_divide, lz_remainder and lz_fmod, and their exact values.
float floor_divide_f32(float a, float b) {
  const float mod = std::fmod(a, b);
  float quotient = (a - mod) / b;
  if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) quotient -= 1.0f;
  if (quotient == 0.0f) return std::copysign(0.0f, a / b);
  const float down = std::floor(quotient);
  return quotient - down > 0.5f ? down + 1.0f : down;
}
float remainder_f32(float a, float b) {
  float mod = std::fmod(a, b);
  if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) mod += b;
  return mod;
}
double remainder_exact(double a, double b) {
  return a - std::floor(a / b) * b;
}

TEST(FuzzDivisionRules, ExactOperandsGiveResultsEveryBackendAgreesOn) {
  auto floor_exact = [](double a, double b) { return std::floor(a / b); };
  auto fmod_f32 = [](float a, float b) { return std::fmod(a, b); };
  auto fmod_exact = [](double a, double b) { return std::fmod(a, b); };
  for (const auto& [a, b] : {std::pair{inexact(-100, 100, 0), inexact(0.3, 7, 0)},
                             std::pair{inexact(-3e4, 2e4, 0), inexact(-0.7, -0.1, 0)},
                             std::pair{inexact(-1, 1, 0), inexact(1e-3, 2e-3, 0)}}) {
    expect_binary_rule_holds("floor_divide", floor_divide_f32, floor_exact, a, b);
    expect_binary_rule_holds("remainder", remainder_f32, remainder_exact, a, b);
    expect_binary_rule_holds("fmod", fmod_f32, fmod_exact, a, b);
  }
  const Operand quarters{Bounds{-8, 8, 0, 2}, lazy::DType::f16};
  const Operand halves{Bounds{0.5, 3, 0, 1}, lazy::DType::f16};
  for (const char* op : {"floor_divide", "remainder", "fmod"}) {
    const Bounds r = binary_rule(op, quarters, halves, lazy::DType::f16, lazy::DType::f16);
    EXPECT_TRUE(r.exact()) << op << ": grid operands give grid results";
  }
}

TEST(FuzzDivisionRules, RefuseAZeroDivisorAndLeaveInexactOperandsUnchecked) {
  auto rule = [](const char* op, Bounds a, Bounds b, lazy::DType dtype = lazy::DType::f32) {
    return binary_rule(op, {a, dtype}, {b, dtype}, dtype, dtype);
  };
  for (const char* op : {"floor_divide", "remainder", "fmod"}) {
    EXPECT_THROW(rule(op, inexact(1, 2, 0), inexact(-1, 1, 0)), StepRejected) << op;
    EXPECT_THROW(rule(op, inexact(1, 2, 0), Bounds{0, 3, 0, 0}, lazy::DType::i64), StepRejected)
        << op;
    // An inexact divisor near zero may cross it.
    EXPECT_THROW(rule(op, inexact(1, 2, 0), inexact(1e-3, 1, 2e-3)), StepRejected) << op;
    EXPECT_TRUE(rule(op, inexact(-5, 5, 1e-6), inexact(1, 2, 0)).unchecked) << op;
    EXPECT_FALSE(rule(op, Bounds{-9, 9, 0, 0}, Bounds{2, 5, 0, 0}, lazy::DType::i32).unchecked)
        << op;
  }
  // A quotient past 2^21 may round differently in f32 and in double.
  EXPECT_THROW(rule("floor_divide", inexact(0, 1e7, 0), inexact(1, 2, 0)), StepRejected);
  // The least i64 over -1 wraps.
  EXPECT_THROW(
      rule("floor_divide", Bounds{-0x1p63, 0, 0, 0}, Bounds{-1, -1, 0, 0}, lazy::DType::i64),
      StepRejected);
}

// Seed 5206 program 933: std of [1e-30, 1.3e30] squares past f32's range on the way.
TEST(FuzzValueRules, VarianceRejectsSpreadsWhoseSquaresOverflowF32) {
  const Operand huge{inexact(7.9e-31, 1.27e30, 0), lazy::DType::f32};
  EXPECT_THROW(variance_rule(huge, lazy::DType::f32, 2, 0.0, true), StepRejected);
  EXPECT_THROW(variance_rule(huge, lazy::DType::f32, 2, 1.0, false), StepRejected);
  const Operand modest{inexact(-1e3, 1e3, 0), lazy::DType::f32};
  EXPECT_NO_THROW(variance_rule(modest, lazy::DType::f32, 1 << 20, 1.0, false));
}

// lazyfuse-fuzz seed 17014 program 453 (shrunk): minimum(0.1, x) for f16 x in [-41, 0] with
// infinities, then gt(..., 0.1). The +inf element makes 0.1, which the fused kernel keeps in f32
// and the reference rounds to f16, so the comparison may go either way; the bounds had said
// [-41, 0], and the comparison exact.
TEST(FuzzValueRules, MinimumWithInfinitiesMayGiveTheOtherOperand) {
  const Operand x{Bounds{-41, 0, 0, 3, /*special=*/true}, lazy::DType::f16};
  const Operand tenth{number_bounds(0.1, lazy::DType::f16), lazy::DType::f16};
  const Bounds smaller = binary_rule("minimum", tenth, x, lazy::DType::f16, lazy::DType::f16);
  EXPECT_GE(smaller.hi, 0.0999);
  const Bounds larger = binary_rule("maximum", x, Operand{Bounds{-60, -50, 0, 0}, lazy::DType::f16},
                                    lazy::DType::f16, lazy::DType::f16);
  EXPECT_LE(larger.lo, -60);  // -inf in x selects the other operand
  const Bounds above = binary_rule("gt", Operand{smaller, lazy::DType::f16}, tenth,
                                   lazy::DType::f16, lazy::DType::bool_);
  EXPECT_TRUE(above.unchecked);
}

// Seed 14203 program 581: an i64 prod of [1, 1000]^4 cast to i32 wraps around.
// lazyfuse-fuzz seed 15102 program 84: cumprod of [0.5, 0.73] was bounded by the whole product,
// [0.25, 0.53], but its first prefix is 0.5.
// lazyfuse-fuzz seed 17094 program 708, shrunk: f16 data in [0.1, 5] whose specials held -0,
// so hypot(0.1, x) reached 0.1, which a fused kernel (f32 between ops) and the reference (f16
// after each op) compare differently with 0.1. The range without 0 said at least 0.141, and
// gt was checked exactly.
TEST(FuzzValueRules, DataWithSpecialValuesMayHoldZero) {
  lazy::fuzz::Step data;
  data.dtype = lazy::DType::f16;
  data.data = {.lo = 0.0999, .hi = 5.0, .quantum = 6, .special = 6};
  const Bounds x = lazy::fuzz::data_bounds(data.data, data.dtype);
  EXPECT_LE(x.lo, 0.0);
  const Operand tenth{lazy::fuzz::number_bounds(0.1, lazy::DType::f16), lazy::DType::f16};
  const Bounds h =
      binary_rule("hypot", tenth, Operand{x, lazy::DType::f16}, lazy::DType::f16, lazy::DType::f16);
  EXPECT_LE(h.lo, 0.1);
  EXPECT_TRUE(
      binary_rule("gt", Operand{h, lazy::DType::f16}, tenth, lazy::DType::f16, lazy::DType::bool_)
          .unchecked);
  data.data.special = 0;
  EXPECT_GT(lazy::fuzz::data_bounds(data.data, data.dtype).lo, 0.09);
}

// lazyfuse-fuzz seed 17094 program 55: 65499 values scatter-added into one element came out
// 1.09 from the reference, a correct sum in some order, where a bound growing with the log of
// the count said 0.53.
TEST(FuzzValueRules, ScatterAddErrorGrowsWithTheCount) {
  Program program = generate(17094, 55, {.generation = 1});
  Builder builder(program);
  builder.apply_all();
  int checked = 0;
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    if (program.steps[i].name != "scatter_add") continue;
    const Bounds b = builder.bounds(int(i));
    if (b.err > 0) EXPECT_GE(b.err, 1.09) << "step " << i;
    checked += b.err > 0;
  }
  EXPECT_GE(checked, 1);
  lazy::ir::Trace::current().clear();
}

TEST(FuzzValueRules, RunningProductsAreBoundedByEveryPrefix) {
  const Operand x{Bounds{0.5, 0.7310585786300049, 0, kNoQuantum}, lazy::DType::f32};
  const Bounds running = scan_rule("prod", x, lazy::DType::f32, 2);
  EXPECT_LE(running.lo, 0.25);
  EXPECT_GE(running.hi, 0.7310585786300049);
  const Operand growing{Bounds{1.5, 2, 0, 1}, lazy::DType::f32};
  const Bounds up = scan_rule("prod", growing, lazy::DType::f32, 3);
  EXPECT_LE(up.lo, 1.5);
  EXPECT_GE(up.hi, 8);
}

TEST(FuzzValueRules, CastRejectsIntegersThatWrapAround) {
  const Operand big{Bounds{1, 1e12, 0, 0}, lazy::DType::i64};
  EXPECT_THROW(cast_rule(big, lazy::DType::i32), StepRejected);
  EXPECT_NO_THROW(cast_rule(big, lazy::DType::bool_));
  const Operand small{Bounds{-100, 100, 0, 0}, lazy::DType::i64};
  EXPECT_EQ(cast_rule(small, lazy::DType::i32).hi, 100);
}

// Seed 13402 program 1636: an f16 rms_norm of [-4, 4] with weights up to 61953 reaches inf.
TEST(FuzzValueRules, NormRejectsResultsThatOverflowTheDtype) {
  const Operand x{inexact(-4, 4, 0), lazy::DType::f16};
  const Operand big_weight{inexact(3, 61953, 0), lazy::DType::i64};
  EXPECT_THROW(norm_rule(x, big_weight, nullptr, lazy::DType::f16, 30976, 1e-3), StepRejected);
  EXPECT_THROW(norm_rule(x, big_weight, &x, lazy::DType::f16, 30976, 1e-3), StepRejected);
  EXPECT_NO_THROW(norm_rule(x, big_weight, nullptr, lazy::DType::f32, 30976, 1e-3));
  const Operand unit_weight{inexact(-1, 1, 0), lazy::DType::f16};
  EXPECT_NO_THROW(norm_rule(x, unit_weight, nullptr, lazy::DType::f16, 30976, 1e-3));
}

TEST(FuzzSmoothRules, HypotAndLogaddexpAreOneLipschitz) {
  auto hypot_device = [](float a, float b) { return std::hypot(a, b); };
  auto hypot_exact = [](double a, double b) { return std::hypot(a, b); };
  expect_binary_rule_holds("hypot", hypot_device, hypot_exact, inexact(-3, 3, 1e-3),
                           inexact(-100, 4, 1e-2));
  expect_binary_rule_holds("hypot", hypot_device, hypot_exact, inexact(-1, 0, 0),
                           inexact(0x1p-10, 0x1p-5, 0));
  expect_binary_rule_holds("logaddexp", logaddexp_f32, logaddexp_exact, inexact(-3, 3, 1e-3),
                           inexact(-100, 4, 1e-2));
  expect_binary_rule_holds("logaddexp", logaddexp_f32, logaddexp_exact, inexact(-1, -0.5, 0),
                           inexact(-1, -0.5, 0));
  expect_binary_rule_holds("logaddexp", logaddexp_f32, logaddexp_exact, inexact(1e4, 2e4, 0),
                           inexact(-2e4, 3e4, 0));
  const Operand a{inexact(-3, 3, 1e-3), lazy::DType::f32};
  const Operand b{inexact(-3, 3, 1e-2), lazy::DType::f32};
  Bounds r = binary_rule("logaddexp", a, b, lazy::DType::f32, lazy::DType::f32);
  EXPECT_LT(r.err, 1e-2 + 1e-5);  // the larger error, not the sum
  EXPECT_NEAR(r.lo, logaddexp_exact(-3, -3), 1e-12);
  EXPECT_NEAR(r.hi, logaddexp_exact(3, 3), 1e-12);
  const Operand huge{inexact(0, 60000, 0), lazy::DType::f16};
  EXPECT_THROW(binary_rule("hypot", huge, huge, lazy::DType::f16, lazy::DType::f16), StepRejected);
}

TEST(FuzzSmoothRules, LerpErrorCoversBothFormsAndTheOperandsErrors) {
  std::uint64_t state = 99;
  for (Bounds w : {inexact(0, 1, 0), inexact(0.4, 0.6, 1e-3), inexact(-2, 3, 1e-4)}) {
    const Bounds s = inexact(-5, 3, 1e-3), e = inexact(-1, 100, 1e-2);
    const Bounds r = lerp_rule({s, lazy::DType::f32}, {e, lazy::DType::f32}, {w, lazy::DType::f32},
                               lazy::DType::f32);
    for (int k = 0; k < 4000; ++k) {
      Sample ss = sample(s, state), se = sample(e, state), sw = sample(w, state);
      double want = ss.exact + sw.exact * (se.exact - ss.exact);
      double got = lerp_f32(ss.held, se.held, sw.held);
      ASSERT_LE(std::abs(got - want), r.err) << ss.held << " " << se.held << " " << sw.held;
      ASSERT_GE(want, r.lo - 1e-9);
      ASSERT_LE(want, r.hi + 1e-9);
    }
  }
}

TEST(FuzzSmoothRules, LerpOfGridValuesWithADyadicWeightIsExact) {
  const Bounds grid{-4, 4, 0, 4};  // multiples of 1/16
  const Operand start{grid, lazy::DType::f32}, end{grid, lazy::DType::f32};
  Bounds r = lerp_rule(start, end, {number_bounds(0.75, lazy::DType::f32), lazy::DType::f32},
                       lazy::DType::f32);
  EXPECT_TRUE(r.exact());
  EXPECT_EQ(r.quantum, 6);
  for (float s = -4; s <= 4; s += 0.4375f)
    for (float e = -4; e <= 4; e += 0.3125f) EXPECT_EQ(lerp_f32(s, e, 0.75f), s + 0.75 * (e - s));
  // A weight no grid holds rounds: inexact.
  Bounds tenth = lerp_rule(start, end, {number_bounds(0.1, lazy::DType::f32), lazy::DType::f32},
                           lazy::DType::f32);
  EXPECT_GT(tenth.err, 0);
  // An integer-looking start far above the grid's reach: inexact as well.
  Bounds wide =
      lerp_rule({Bounds{-3e7, 3e7, 0, 4}, lazy::DType::f32}, end,
                {number_bounds(0.75, lazy::DType::f32), lazy::DType::f32}, lazy::DType::f32);
  EXPECT_FALSE(wide.exact());
}

// Seed 17177, program 597: an i64 of up to 8163882 times an f16 zero. The i64 becomes infinity in
// f16, so the product is NaN, which the fuzzer's bounds ([-0, -0]) had called out of bounds.
TEST(FuzzRuleRegressions, IntegersPastF16sLargestMayBeInfinityInTheFuzzersBounds) {
  using lazy::fuzz::Bounds;
  const Bounds past = lazy::fuzz::converted(Bounds{0, 8163882, 0, 0}, DType::i64, DType::f16);
  EXPECT_TRUE(past.special);
  EXPECT_LE(past.hi, 65504);
  EXPECT_FALSE(lazy::fuzz::converted(Bounds{0, 2048, 0, 0}, DType::i64, DType::f16).special);
  const Tensor big = lazy::from_data(std::vector<std::int64_t>{8163882}, {1, 1}, DType::i64);
  const Tensor zero = lazy::from_data(std::vector<double>{0.0}, {1, 1}, DType::f16);
  EXPECT_TRUE(std::isnan(lazy::mul(big, zero).item<double>()));
}

// Seed 17296, program 843: f32 data holding infinities cast to i32 (saturating to +-2^31), back
// to f32 and summed with small values in a product. The fuzzer's bounds kept the data's range
// [-4, 4] as exact, where the f32 sum of +-2^28 and small terms legitimately loses them.
TEST(FuzzRuleRegressions, InfinitiesCastToIntegersSpanTheDTypeInTheFuzzersBounds) {
  using lazy::fuzz::Bounds;
  Bounds data{-4, 4, 0, 4};
  data.special = true;
  const Bounds cast = lazy::fuzz::converted(data, DType::f32, DType::i32);
  EXPECT_FALSE(cast.special);
  EXPECT_LE(cast.lo, -2147483648.0);
  EXPECT_GE(cast.hi, 2147483647.0);
  data.special = false;
  EXPECT_EQ(lazy::fuzz::converted(data, DType::f32, DType::i32).hi, 4);
  // What the cast gives: GpuFuzzRegressions.NanCastToIntegersIsZeroAndInfinitiesSaturate.
}

// Seed 17314 programs 2715 and 3350, seed 17317 program 508: -inf cast to i64 saturates to -2^63,
// past the 2^53 (where doubles stop holding every integer) at which the bounds stopped.
TEST(FuzzRuleRegressions, InfinitiesCastToI64SpanAllOfI64InTheFuzzersBounds) {
  lazy::fuzz::Bounds data{0, 1, 0, 3};
  data.special = true;
  const lazy::fuzz::Bounds cast = lazy::fuzz::converted(data, DType::f32, DType::i64);
  EXPECT_LE(cast.lo, double(std::numeric_limits<std::int64_t>::min()));
  EXPECT_GE(cast.hi, double(std::numeric_limits<std::int64_t>::max()));
}

// Seed 17314 program 3118: abs of an i32 cast of -inf is abs(-2^31), which wraps to -2^31, below
// the bounds' 0. neg of the least value wraps the same way.
TEST(FuzzRuleRegressions, NegAndAbsOfTheLeastIntegerWrapInTheFuzzersBounds) {
  for (DType dtype : {DType::i32, DType::i64}) {
    const double least = lazy::fuzz::integer_min(dtype);
    const lazy::fuzz::Operand x{lazy::fuzz::Bounds{least, 5, 0, 0}, dtype};
    EXPECT_LE(lazy::fuzz::unary_rule("abs", x, dtype).lo, least) << lazy::dtype_name(dtype);
    EXPECT_LE(lazy::fuzz::unary_rule("neg", x, dtype).lo, least) << lazy::dtype_name(dtype);
    const lazy::fuzz::Operand above{lazy::fuzz::Bounds{least + 1024, 5, 0, 0}, dtype};
    EXPECT_EQ(lazy::fuzz::unary_rule("abs", above, dtype).lo, 0);  // nothing wraps
  }
  const Tensor least = lazy::full({1}, -2147483648.0, DType::i32);
  EXPECT_EQ(lazy::abs(least).item<std::int64_t>(), -2147483648LL);
  EXPECT_EQ(lazy::neg(least).item<std::int64_t>(), -2147483648LL);
}

// Seed 17211, program 1003: a bf16 sum of 125 values in [-1, 3] is exact in its f32 accumulator
// but rounds to bf16, where 375 is 376: outside the fuzzer's bounds [-125, 375], though the
// reference and the GPU agreed.
TEST(FuzzRuleRegressions, ABf16SumRoundedToItsDTypeStaysInTheFuzzersBounds) {
  const lazy::fuzz::Operand values{lazy::fuzz::Bounds{-1, 3, 0, 0}, DType::bf16};
  const lazy::fuzz::Bounds sum = lazy::fuzz::reduce_rule("sum", values, DType::bf16, 125);
  EXPECT_GE(sum.hi, 376);
  EXPECT_LE(sum.lo, -125);
  const Tensor threes = lazy::full({125}, 3.0, DType::bf16);
  const double got = lazy::sum(threes).item<double>();
  EXPECT_EQ(got, 376);
  EXPECT_LE(got, sum.hi);
}

// A program of a `value` leaf of `shape` in `dtype` and one statistic step over all of it.
Program statistic_of(double value, std::vector<Dim> shape, DType dtype, const char* name,
                     double order = 2) {
  Program p;
  Step leaf;
  leaf.op = Op::full;
  leaf.name = "full";
  leaf.dtype = dtype;
  leaf.shape = std::move(shape);
  leaf.args = {Arg{-1, value, lazy::Scalar::Kind::floating}};
  Step step;
  step.op = Op::statistic;
  step.name = name;
  step.q = order;
  step.args = {Arg{0}};
  p.steps = {leaf, step};
  return p;
}

// Review of generation 9: an f16 nanmean divides by its count in f16, where 70001 is inf and the
// mean 0; the mean rule had bounded it as a mean. Sums past f16's range are refused too.
TEST(FuzzRuleRegressions, AnF16NanmeanWhoseCountOrSumPassesF16IsRefused) {
  Program counted = statistic_of(0.0009765625, {Dim{{}, 70001}}, DType::f16, "nanmean");
  EXPECT_THROW(Builder(counted).apply_all(), StepRejected);
  Program overflowing = statistic_of(40000, {Dim{{}, 2}}, DType::f16, "nanmean");
  EXPECT_THROW(Builder(overflowing).apply_all(), StepRejected);
  Program fitting = statistic_of(4000, {Dim{{}, 2}}, DType::f16, "nanmean");
  Builder b(fitting);
  b.apply_all();
  EXPECT_EQ(b.tensor(1).item<double>(), 4000);
  EXPECT_LE(b.bounds(1).lo - b.bounds(1).err, 4000);
  discard_recording();
}

// Review of generation 9: a 3-norm's root takes 1/3 held in f32, off by 1e-8 relative per unit of
// |ln sum|: at 1e12 that is 8e5, past the bounds before they counted it.
TEST(FuzzRuleRegressions, APowerNormsRootWithAnF32ExponentStaysInTheFuzzersBounds) {
  for (double value : {1e12, 1e-10, 3.0}) {
    Program p = statistic_of(value, {Dim{{}, 1}}, DType::f32, "vector_norm", 3);
    Builder b(p);
    b.apply_all();
    const double got = b.tensor(1).item<double>();
    const Bounds& bounds = b.bounds(1);
    const double slack = bounds.err + 2 * ulp(DType::f32, bounds.hi);
    EXPECT_GE(got, bounds.lo - slack) << value;
    EXPECT_LE(got, bounds.hi + slack) << value;
    discard_recording();
  }
}

}  // namespace
