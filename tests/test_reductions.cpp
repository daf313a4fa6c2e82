// The reductions of lazy/reductions.h, checked against loops over the same host data in double,
// rounded to the result's dtype. Inputs are pseudo-random with fixed seeds and exact in their
// dtype, so the tensor holds exactly the values the loops read.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "host_test_support.h"
#include "ir/trace.h"
#include "lazy/lazy.h"

namespace {

using namespace lazy_test;  // NOLINT: the shared test helpers

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using ::testing::Combine;
using ::testing::ValuesIn;
using Dims = std::vector<std::int64_t>;

// ---------------------------------------------------------------------------------------------
// Reference arithmetic, independent of the library.

// The relative error a result may carry beyond the reference's final rounding, as a fraction of
// the magnitudes it was computed from: about one unit in the last place. Integers are exact.
double tolerance_of(DType dtype) {
  switch (dtype) {
    case lazy::f32:
      return 1e-6;
    case lazy::f16:
      return 1e-3;
    case lazy::bf16:
      return 1e-2;
    default:
      return 0;
  }
}

double sum_of(const std::vector<double>& g) {
  double s = 0;
  for (double v : g) s += v;
  return s;
}
double sum_of_abs(const std::vector<double>& g) {
  double s = 0;
  for (double v : g) s += std::fabs(v);
  return s;
}
double sum_of_squares(const std::vector<double>& g) {
  double s = 0;
  for (double v : g) s += v * v;
  return s;
}
double prod_of(const std::vector<double>& g) {
  double p = 1;
  for (double v : g) p *= v;
  return p;
}
// NaN anywhere gives NaN.
double max_of(const std::vector<double>& g) {
  double m = -kInf;
  for (double v : g) {
    if (std::isnan(v)) return kNaN;
    m = std::max(m, v);
  }
  return m;
}
double min_of(const std::vector<double>& g) {
  double m = kInf;
  for (double v : g) {
    if (std::isnan(v)) return kNaN;
    m = std::min(m, v);
  }
  return m;
}
double mean_of(const std::vector<double>& g) {
  return sum_of(g) / double(g.size());
}
// PyTorch's divisor: max(0, n - correction).
double var_divisor(const std::vector<double>& g, double correction) {
  return std::max(0.0, double(g.size()) - correction);
}
double var_of(const std::vector<double>& g, double correction) {
  double m = mean_of(g), s = 0;
  for (double v : g) s += (v - m) * (v - m);
  return s / var_divisor(g, correction);
}
double logsumexp_of(const std::vector<double>& g) {
  double m = max_of(g), s = 0;
  for (double v : g) s += std::exp(v - m);
  return m + std::log(s);
}
double any_of(const std::vector<double>& g) {
  return std::any_of(g.begin(), g.end(), [](double v) { return v != 0; }) ? 1 : 0;
}
double all_of(const std::vector<double>& g) {
  return std::all_of(g.begin(), g.end(), [](double v) { return v != 0; }) ? 1 : 0;
}
// The first NaN, else the first largest (smallest) element.
double argmax_of(const std::vector<double>& g) {
  std::size_t best = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(g[i])) return double(i);
    if (g[i] > g[best]) best = i;
  }
  return double(best);
}
double argmin_of(const std::vector<double>& g) {
  std::size_t best = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(g[i])) return double(i);
    if (g[i] < g[best]) best = i;
  }
  return double(best);
}

std::int64_t numel_of(const Dims& dims) {
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  return n;
}

Shape shape_of(const Dims& dims) {
  return Shape(std::span<const std::int64_t>(dims));
}

// The elements each result folds, in row-major order of the folded axes, results in row-major
// order, and the result's shape. No axes means all of them; negative axes count from the end.
struct Folding {
  Shape shape;
  std::vector<std::vector<double>> groups;
};

Folding fold(const std::vector<double>& x, const Dims& dims, const std::vector<int>& axes,
             bool keepdim) {
  const int rank = int(dims.size());
  std::vector<bool> folded(std::size_t(rank), axes.empty());
  for (int a : axes) folded[std::size_t(a < 0 ? a + rank : a)] = true;
  Folding f;
  std::int64_t results = 1;
  for (int a = 0; a < rank; ++a) {
    if (!folded[std::size_t(a)]) {
      f.shape.push_back(dims[std::size_t(a)]);
      results *= dims[std::size_t(a)];
    } else if (keepdim) {
      f.shape.push_back(1);
    }
  }
  f.groups.resize(std::size_t(results));
  std::vector<std::int64_t> index(std::size_t(rank), 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::int64_t r = 0;
    for (int a = 0; a < rank; ++a) {
      if (!folded[std::size_t(a)]) r = r * dims[std::size_t(a)] + index[std::size_t(a)];
    }
    f.groups[std::size_t(r)].push_back(x[i]);
    for (int a = rank - 1; a >= 0; --a) {
      if (++index[std::size_t(a)] < dims[std::size_t(a)]) break;
      index[std::size_t(a)] = 0;
    }
  }
  return f;
}

// ---------------------------------------------------------------------------------------------
// Inputs.

// FNV-1a of the test's name: each test draws its own values, the same on every run.
unsigned seed_of_current_test() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "." + info->name();
  std::uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ std::uint8_t(c)) * 16777619u;
  return h;
}

// What a reduction's inputs look like.
enum class Inputs {
  signed_values,   // floats in [-2, 2], integers in [-9, 9] but 0, half the bools true
  near_one,        // magnitudes near 1 with either sign, so that products neither vanish nor
                   // overflow: floats in [0.75, 1.25], integers 1 and 2, most bools true
  mostly_zero,     // 85% zeros, else signed values: any() is sometimes false
  mostly_nonzero,  // 3% zeros, else signed values: all() is sometimes true
};

void expect_not_all_zeros(const std::vector<double>& values) {
  if (std::all_of(values.begin(), values.end(), [](double v) { return v == 0; })) {
    ADD_FAILURE() << "the random inputs came out all zeros; pick another seed";
  }
}

// `count` values of the kind, exact in `dtype`.
std::vector<double> random_inputs(Inputs kind, DType dtype, std::int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  const double zero_chance = kind == Inputs::mostly_zero      ? 0.85
                             : kind == Inputs::mostly_nonzero ? 0.03
                             : kind == Inputs::near_one       ? (dtype == lazy::bool_ ? 0.2 : 0)
                             : dtype == lazy::bool_           ? 0.5
                                                              : 0;
  std::bernoulli_distribution zero(zero_chance), negative(0.5);
  std::uniform_real_distribution<double> signed_float(-2, 2), near_one_float(0.75, 1.25);
  std::uniform_int_distribution<int> signed_int(1, 9), near_one_int(1, 2);
  auto nonzero = [&]() -> double {
    if (dtype == lazy::bool_) return 1;
    if (kind == Inputs::near_one) {
      double magnitude = lazy::is_floating(dtype) ? near_one_float(rng) : near_one_int(rng);
      return round_to(dtype, negative(rng) ? -magnitude : magnitude);
    }
    if (lazy::is_floating(dtype)) return round_to(dtype, signed_float(rng));
    return negative(rng) ? -signed_int(rng) : signed_int(rng);
  };
  std::vector<double> values(static_cast<std::size_t>(count));
  for (double& v : values) v = zero(rng) ? 0 : nonzero();
  // Never all zeros: a small tensor of a mostly-zero kind gets one non-zero element.
  if (std::all_of(values.begin(), values.end(), [](double v) { return v == 0; })) {
    values[rng() % values.size()] = nonzero();
  }
  expect_not_all_zeros(values);
  return values;
}

// A tensor of `dtype` holding the values in row-major order.
Tensor tensor_of(const std::vector<double>& values, const Dims& dims, DType dtype) {
  Shape shape = shape_of(dims);
  if (lazy::is_floating(dtype)) return lazy::from_data(values, shape, dtype);
  if (dtype == lazy::bool_)
    return lazy::from_data(std::vector<bool>(values.begin(), values.end()), shape);
  std::vector<std::int64_t> ints;
  for (double v : values) ints.push_back(std::int64_t(v));
  return lazy::from_data(ints, shape, dtype);
}

lazy::Axes axes_of(const std::vector<int>& axes) {
  return lazy::Axes(std::span<const int>(axes));
}

// ---------------------------------------------------------------------------------------------
// Checks.

// Each element of `result` within slack[i] of want[i] (NaN must meet NaN, an infinity the same
// one); integer and bool results exactly. A failure names the line that asked for the check.
void expect_close(const Tensor& result, const std::vector<double>& want,
                  const std::vector<double>& slack,
                  std::source_location where = std::source_location::current()) {
  ::testing::ScopedTrace trace(where.file_name(), int(where.line()), "checked here");
  ASSERT_EQ(std::size_t(result.numel()), want.size());
  if (result.dtype() == lazy::bool_) {
    EXPECT_EQ(result.to_vector<bool>(), std::vector<bool>(want.begin(), want.end()));
    return;
  }
  if (!lazy::is_floating(result.dtype())) {
    std::vector<std::int64_t> ints;
    for (double v : want) ints.push_back(std::int64_t(v));
    EXPECT_EQ(result.to_vector<std::int64_t>(), ints);
    return;
  }
  std::vector<double> got = result.to_vector<double>();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": got " << got[i] << ", want NaN";
    } else if (std::isinf(want[i]) || slack[i] == 0) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], slack[i]) << "element " << i;
    }
  }
}

// Exact values (integers, bools, or floats that must come out exactly).
void expect_exact(const Tensor& result, const std::vector<double>& want,
                  std::source_location where = std::source_location::current()) {
  expect_close(result, want, std::vector<double>(want.size(), 0), where);
}

// ---------------------------------------------------------------------------------------------
// Where reductions fold: shapes of rank 1 to 4 with sizes 1 and 3 among them, one axis, a set of
// axes in any order, all axes; negative axes; keepdim on and off.

struct AxesCase {
  const char* name;
  Dims dims;
  std::vector<int> axes;  // empty: all
  bool keepdim;
};
void PrintTo(const AxesCase& c, std::ostream* os) {
  *os << c.name;
}

const AxesCase kAxesCases[] = {
    {"r1_axis0", {7}, {0}, false},
    {"r1_axisneg1_keep", {7}, {-1}, true},
    {"r1_all", {7}, {}, false},
    {"r1_size1_axis0", {1}, {0}, false},
    {"r1_size3_all_keep", {3}, {}, true},
    {"r2_axis0", {5, 6}, {0}, false},
    {"r2_axis1_keep", {5, 6}, {1}, true},
    {"r2_axisneg2", {5, 6}, {-2}, false},
    {"r2_axes0_1", {5, 6}, {0, 1}, false},
    {"r2_axesneg1_0_keep", {5, 6}, {-1, 0}, true},
    {"r2_all_keep", {5, 6}, {}, true},
    {"r3_axis1", {3, 4, 5}, {1}, false},
    {"r3_axisneg1_keep", {3, 4, 5}, {-1}, true},
    {"r3_axes0_2_keep", {3, 4, 5}, {0, 2}, true},
    {"r3_axesneg1_neg3", {3, 4, 5}, {-1, -3}, false},
    {"r3_axes2_1_0", {3, 4, 5}, {2, 1, 0}, false},
    {"r3_all", {3, 4, 5}, {}, false},
    {"r4_size1_axis1", {3, 1, 4, 5}, {1}, false},
    {"r4_axisneg1", {3, 1, 4, 5}, {-1}, false},
    {"r4_axis2_keep", {3, 1, 4, 5}, {2}, true},
    {"r4_axes1_3", {3, 1, 4, 5}, {1, 3}, false},
    {"r4_axesneg4_neg2_keep", {3, 1, 4, 5}, {-4, -2}, true},
    {"r4_axes0_1_2_3", {3, 1, 4, 5}, {0, 1, 2, 3}, false},
    {"r4_all_keep", {3, 1, 4, 5}, {}, true},
};

// argmax and argmin take one axis or none; with none they index the flattened tensor.
std::vector<AxesCase> single_axis_cases() {
  std::vector<AxesCase> cases;
  for (const AxesCase& c : kAxesCases) {
    if (c.axes.size() == 1 || (c.axes.empty() && !c.keepdim)) cases.push_back(c);
  }
  return cases;
}

// =============================================================================================
// Reductions against loops.

DType same_dtype(DType d) {
  return d;
}
// Integers and bools sum and multiply to i64, as in PyTorch.
DType summed_dtype(DType d) {
  return lazy::is_floating(d) ? d : lazy::i64;
}
DType bool_dtype(DType) {
  return lazy::bool_;
}
DType floating_dtype(DType d) {
  return lazy::is_floating(d) ? d : lazy::f32;
}

// The error each result may carry beyond its rounding, in units of the dtype's tolerance: the
// magnitude of the terms it was computed from.
double exact(const std::vector<double>&, double) {
  return 0;
}
double sum_scale(const std::vector<double>& g, double) {
  return sum_of_abs(g);
}
double mean_scale(const std::vector<double>& g, double) {
  return sum_of_abs(g) / double(g.size());
}
double result_scale(const std::vector<double>&, double result) {
  return std::fabs(result);
}
double log_scale(const std::vector<double>&, double result) {
  return 1 + std::fabs(result);
}
template <int kCorrection>
double var_scale(const std::vector<double>& g, double) {
  return sum_of_squares(g) / var_divisor(g, kCorrection);
}
template <int kCorrection>
double std_scale(const std::vector<double>& g, double) {
  return std::sqrt(sum_of_squares(g) / var_divisor(g, kCorrection));
}
template <int kCorrection>
double var_reference(const std::vector<double>& g) {
  return var_of(g, kCorrection);
}
template <int kCorrection>
double std_reference(const std::vector<double>& g) {
  return std::sqrt(var_of(g, kCorrection));
}

struct ReductionCase {
  const char* name;
  Tensor (*op)(const Tensor& x, const lazy::Axes& axes, bool keepdim);
  DType (*result_dtype)(DType input);
  Inputs inputs;
  double (*reference)(const std::vector<double>& group);
  double (*error_scale)(const std::vector<double>& group, double result);
};
void PrintTo(const ReductionCase& c, std::ostream* os) {
  *os << c.name;
}

// clang-format off
#define REDUCTION(name, call) \
  #name, [](const Tensor& x, const lazy::Axes& axes, bool keepdim) { return call; }
// clang-format on

// Reductions that take every dtype.
const ReductionCase kAnyDTypeReductions[] = {
    {REDUCTION(sum, lazy::sum(x, axes, keepdim)), summed_dtype, Inputs::signed_values, sum_of,
     sum_scale},
    {REDUCTION(prod, lazy::prod(x, axes, keepdim)), summed_dtype, Inputs::near_one, prod_of,
     result_scale},
    {REDUCTION(max, lazy::max(x, axes, keepdim)), same_dtype, Inputs::signed_values, max_of, exact},
    {REDUCTION(min, lazy::min(x, axes, keepdim)), same_dtype, Inputs::signed_values, min_of, exact},
    {REDUCTION(logsumexp, lazy::logsumexp(x, axes, keepdim)), floating_dtype, Inputs::signed_values,
     logsumexp_of, log_scale},
    {REDUCTION(any, lazy::any(x, axes, keepdim)), bool_dtype, Inputs::mostly_zero, any_of, exact},
    {REDUCTION(all, lazy::all(x, axes, keepdim)), bool_dtype, Inputs::mostly_nonzero, all_of,
     exact},
};

// Reductions that need a floating input.
const ReductionCase kFloatingReductions[] = {
    {REDUCTION(mean, lazy::mean(x, axes, keepdim)), same_dtype, Inputs::signed_values, mean_of,
     mean_scale},
    {REDUCTION(var_correction0, lazy::var(x, axes, 0, keepdim)), same_dtype, Inputs::signed_values,
     var_reference<0>, var_scale<0>},
    {REDUCTION(var_correction1, lazy::var(x, axes, 1, keepdim)), same_dtype, Inputs::signed_values,
     var_reference<1>, var_scale<1>},
    {REDUCTION(std_correction0, lazy::std(x, axes, 0, keepdim)), same_dtype, Inputs::signed_values,
     std_reference<0>, std_scale<0>},
    {REDUCTION(std_correction1, lazy::std(x, axes, 1, keepdim)), same_dtype, Inputs::signed_values,
     std_reference<1>, std_scale<1>},
};

#undef REDUCTION

std::string reduction_test_name(
    const ::testing::TestParamInfo<std::tuple<ReductionCase, DType, AxesCase>>& info) {
  const auto& [op, dtype, axes] = info.param;
  return std::string(op.name) + "_" + std::string(lazy::dtype_name(dtype)) + "_" + axes.name;
}

class Reduction : public ::testing::TestWithParam<std::tuple<ReductionCase, DType, AxesCase>> {};

TEST_P(Reduction, MatchesLoopsInDoubleRoundedToTheResultDtype) {
  const auto& [op, dtype, where] = GetParam();
  std::vector<double> x =
      random_inputs(op.inputs, dtype, numel_of(where.dims), seed_of_current_test());
  Tensor result = op.op(tensor_of(x, where.dims, dtype), axes_of(where.axes), where.keepdim);

  const DType result_dtype = op.result_dtype(dtype);
  EXPECT_EQ(result.dtype(), result_dtype);
  Folding folding = fold(x, where.dims, where.axes, where.keepdim);
  EXPECT_EQ(result.shape(), folding.shape);
  std::vector<double> want, slack;
  for (const std::vector<double>& group : folding.groups) {
    double value = op.reference(group);
    want.push_back(round_to(result_dtype, value));
    slack.push_back(tolerance_of(result_dtype) * op.error_scale(group, value));
  }
  expect_close(result, want, slack);
}

INSTANTIATE_TEST_SUITE_P(AnyDType, Reduction,
                         Combine(ValuesIn(kAnyDTypeReductions), ValuesIn(kAllDTypes),
                                 ValuesIn(kAxesCases)),
                         reduction_test_name);
INSTANTIATE_TEST_SUITE_P(FloatingDType, Reduction,
                         Combine(ValuesIn(kFloatingReductions), ValuesIn(kFloatingDTypes),
                                 ValuesIn(kAxesCases)),
                         reduction_test_name);

// ---------------------------------------------------------------------------------------------
// argmax and argmin against loops.

struct ArgCase {
  const char* name;
  Tensor (*op)(const Tensor& x, std::optional<int> axis, bool keepdim);
  double (*reference)(const std::vector<double>& group);
};
void PrintTo(const ArgCase& c, std::ostream* os) {
  *os << c.name;
}

const ArgCase kArgReductions[] = {
    {"argmax",
     [](const Tensor& x, std::optional<int> axis, bool keepdim) {
       return lazy::argmax(x, axis, keepdim);
     },
     argmax_of},
    {"argmin",
     [](const Tensor& x, std::optional<int> axis, bool keepdim) {
       return lazy::argmin(x, axis, keepdim);
     },
     argmin_of},
};

std::string arg_test_name(
    const ::testing::TestParamInfo<std::tuple<ArgCase, DType, AxesCase>>& info) {
  const auto& [op, dtype, axes] = info.param;
  return std::string(op.name) + "_" + std::string(lazy::dtype_name(dtype)) + "_" + axes.name;
}

class ArgReduction : public ::testing::TestWithParam<std::tuple<ArgCase, DType, AxesCase>> {};

TEST_P(ArgReduction, GivesTheFirstExtremeIndexAsI64) {
  const auto& [op, dtype, where] = GetParam();
  std::vector<double> x =
      random_inputs(Inputs::signed_values, dtype, numel_of(where.dims), seed_of_current_test());
  std::optional<int> axis;
  if (!where.axes.empty()) axis = where.axes[0];
  Tensor result = op.op(tensor_of(x, where.dims, dtype), axis, where.keepdim);

  EXPECT_EQ(result.dtype(), lazy::i64);
  Folding folding = fold(x, where.dims, where.axes, where.keepdim);
  EXPECT_EQ(result.shape(), folding.shape);
  std::vector<double> want;
  for (const std::vector<double>& group : folding.groups) want.push_back(op.reference(group));
  expect_exact(result, want);
}

INSTANTIATE_TEST_SUITE_P(AnyDType, ArgReduction,
                         Combine(ValuesIn(kArgReductions), ValuesIn(kAllDTypes),
                                 ValuesIn(single_axis_cases())),
                         arg_test_name);

// ---------------------------------------------------------------------------------------------
// Determinism.

class ReductionDeterminism : public ::testing::TestWithParam<ReductionCase> {};

std::vector<std::uint32_t> bits_of(const Tensor& t) {
  std::vector<std::uint32_t> bits;
  for (float v : t.to_vector<float>()) bits.push_back(std::bit_cast<std::uint32_t>(v));
  return bits;
}

TEST_P(ReductionDeterminism, TwiceGivesBitwiseEqualResults) {
  const ReductionCase& op = GetParam();
  const Dims dims = {64, 257};
  std::vector<double> x =
      random_inputs(op.inputs, lazy::f32, numel_of(dims), seed_of_current_test());
  std::vector<std::uint32_t> first = bits_of(op.op(tensor_of(x, dims, lazy::f32), 0, false));
  std::vector<std::uint32_t> second = bits_of(op.op(tensor_of(x, dims, lazy::f32), 0, false));
  EXPECT_EQ(first, second);
}

std::string case_test_name(const ::testing::TestParamInfo<ReductionCase>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(AnyDType, ReductionDeterminism, ValuesIn(kAnyDTypeReductions),
                         case_test_name);
INSTANTIATE_TEST_SUITE_P(FloatingDType, ReductionDeterminism, ValuesIn(kFloatingReductions),
                         case_test_name);

// =============================================================================================
// One long axis: 1000003 elements, an odd count far past any block size.

constexpr std::int64_t kLongAxis = 1000003;

class LongAxis : public ::testing::TestWithParam<DType> {};

std::string dtype_test_name(const ::testing::TestParamInfo<DType>& info) {
  return std::string(lazy::dtype_name(info.param));
}

TEST_P(LongAxis, SumMatchesLoop) {
  const DType dtype = GetParam();
  std::vector<double> x =
      random_inputs(Inputs::signed_values, dtype, kLongAxis, seed_of_current_test());
  Tensor result = lazy::sum(tensor_of(x, {kLongAxis}, dtype), 0);
  EXPECT_EQ(result.shape(), Shape{});
  const DType result_dtype = summed_dtype(dtype);
  expect_close(result, {round_to(result_dtype, sum_of(x))},
               {tolerance_of(result_dtype) * sum_of_abs(x)});
}

TEST_P(LongAxis, MaxMatchesLoop) {
  const DType dtype = GetParam();
  std::vector<double> x =
      random_inputs(Inputs::signed_values, dtype, kLongAxis, seed_of_current_test());
  // One element above all others, late in the axis.
  x[kLongAxis - 17] = dtype == lazy::bool_ ? 1 : lazy::is_floating(dtype) ? 3 : 10;
  Tensor result = lazy::max(tensor_of(x, {1, kLongAxis}, dtype), -1, true);
  EXPECT_EQ(result.shape(), (Shape{1, 1}));
  expect_exact(result, {max_of(x)});
}

// A long axis with few results folds in runs, then the runs' winners: the first extreme element
// (or the first NaN) must still win across runs and over the elements past the last whole run.
TEST_P(LongAxis, ArgmaxAndArgminMatchLoops) {
  const DType dtype = GetParam();
  struct Case {
    Dims dims;
    std::optional<int> axis;
  };
  const Case cases[] = {{{kLongAxis}, std::nullopt},
                        {{3, kLongAxis}, -1},
                        {{kLongAxis, 3}, 0},
                        {{1003, 997}, std::nullopt}};
  for (const Case& c : cases) {
    std::vector<double> x =
        random_inputs(Inputs::signed_values, dtype, numel_of(c.dims), seed_of_current_test());
    if (lazy::is_floating(dtype)) {
      x[x.size() - 5] = std::nan("");  // past the last whole run of a flat fold
      x[x.size() / 2] = std::nan("");
    }
    const std::vector<int> axes =
        c.axis ? std::vector<int>{*c.axis < 0 ? int(c.dims.size()) + *c.axis : *c.axis}
               : std::vector<int>{};
    const Folding folding = fold(x, c.dims, axes, false);
    std::vector<double> want_max, want_min;
    for (const std::vector<double>& group : folding.groups) {
      want_max.push_back(argmax_of(group));
      want_min.push_back(argmin_of(group));
    }
    const Tensor t = tensor_of(x, c.dims, dtype);
    SCOPED_TRACE(::testing::PrintToString(c.dims));
    expect_exact(lazy::argmax(t, c.axis), want_max);
    expect_exact(lazy::argmin(t, c.axis), want_min);
  }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, LongAxis, ValuesIn(kAllDTypes), dtype_test_name);

// Runs add an axis, so a rank-8 input (the most a shape holds) folds its one axis in one stage.
TEST(ArgReductionRank, EightAxesFoldALongAxisToo) {
  const std::vector<double> row =
      random_inputs(Inputs::signed_values, lazy::f32, 70000, seed_of_current_test());
  const Tensor x = tensor_of(row, {1, 1, 1, 1, 1, 1, 1, 70000}, lazy::f32);
  expect_exact(lazy::argmax(x, -1), {argmax_of(row)});
  expect_exact(lazy::argmin(x, -1, true), {argmin_of(row)});
  const std::vector<double> column =
      random_inputs(Inputs::signed_values, lazy::f32, 700000, seed_of_current_test() + 1);
  const Tensor y = tensor_of(column, {700000, 1, 1, 1, 1, 1, 1, 1}, lazy::f32);
  expect_exact(lazy::argmax(y, 0), {argmax_of(column)});
}

// =============================================================================================
// Integer results are exact.

TEST(IntegerReduction, SumOfI32IsExactPastTheI32Range) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::int64_t> large(std::int64_t(1) << 30,
                                                    std::numeric_limits<std::int32_t>::max());
  std::vector<std::int64_t> x(1001);
  for (std::int64_t& v : x) v = large(rng);
  std::int64_t want = 0;
  for (std::int64_t v : x) want += v;
  Tensor result = lazy::sum(lazy::from_data(x, Shape{1001}, lazy::i32));
  EXPECT_EQ(result.dtype(), lazy::i64);
  EXPECT_EQ(result.item<std::int64_t>(), want);
}

TEST(IntegerReduction, ProdOfI32IsExactPastTheI32Range) {
  std::vector<std::int64_t> x = {40000, 50000, -60000, 7};
  Tensor result = lazy::prod(lazy::from_data(x, Shape{4}, lazy::i32));
  EXPECT_EQ(result.dtype(), lazy::i64);
  EXPECT_EQ(result.item<std::int64_t>(), std::int64_t(40000) * 50000 * -60000 * 7);
}

// 2^53 + 1 and 2^53 are equal as doubles; argmax must still tell them apart.
TEST(IntegerReduction, ArgmaxOfI64IsExactBeyondDoublePrecision) {
  const std::int64_t big = std::int64_t(1) << 53;
  std::vector<std::int64_t> x = {big, big + 1, big - 1};
  EXPECT_EQ(lazy::argmax(lazy::from_data(x, Shape{3})).item<std::int64_t>(), 1);
}

TEST(IntegerReduction, ArgminOfI64IsExactBeyondDoublePrecision) {
  const std::int64_t big = std::int64_t(1) << 53;
  std::vector<std::int64_t> x = {big + 1, big, big + 3};
  EXPECT_EQ(lazy::argmin(lazy::from_data(x, Shape{3})).item<std::int64_t>(), 1);
}

TEST(IntegerReduction, MaxOfI64IsExactBeyondDoublePrecision) {
  const std::int64_t big = std::int64_t(1) << 53;
  std::vector<std::int64_t> x = {big, big + 1, big - 1};
  EXPECT_EQ(lazy::max(lazy::from_data(x, Shape{3})).item<std::int64_t>(), big + 1);
}

// =============================================================================================
// Ties and NaN.

// Values 0 and 1 only, so that every dtype holds them.
const std::vector<double> kTiesForArgmax = {
    0, 1, 1, 0,  // first largest at 1
    1, 1, 0, 1,  // at 0
    0, 0, 0, 0,  // all tied: at 0
    0, 0, 1, 1,  // at 2
};
const std::vector<double> kTiesForArgmin = {
    1, 0, 1, 0,  // first smallest at 1
    1, 1, 0, 0,  // at 2
    1, 1, 1, 1,  // all tied: at 0
    0, 1, 1, 0,  // at 0
};

class ArgTies : public ::testing::TestWithParam<DType> {};

TEST_P(ArgTies, ArgmaxGivesTheFirstIndexAlongEitherAxisAndFlattened) {
  Tensor x = tensor_of(kTiesForArgmax, {4, 4}, GetParam());
  expect_exact(lazy::argmax(x, 1), {1, 0, 0, 2});
  expect_exact(lazy::argmax(x, 0), {1, 0, 0, 1});
  expect_exact(lazy::argmax(x), {1});
}

TEST_P(ArgTies, ArgminGivesTheFirstIndexAlongEitherAxisAndFlattened) {
  Tensor x = tensor_of(kTiesForArgmin, {4, 4}, GetParam());
  expect_exact(lazy::argmin(x, 1), {1, 2, 0, 0});
  expect_exact(lazy::argmin(x, 0), {3, 0, 1, 0});
  expect_exact(lazy::argmin(x), {1});
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ArgTies, ValuesIn(kAllDTypes), dtype_test_name);

TEST(ArgmaxAndArgmin, WithoutAxisIndexTheFlattenedTensor) {
  std::vector<double> x(12);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = double((i * 5) % 12);  // distinct
  x[9] = 20;                                                               // row 2, column 1
  x[7] = -20;                                                              // row 1, column 3
  Tensor t = tensor_of(x, {3, 4}, lazy::f32);
  Tensor largest = lazy::argmax(t);
  Tensor smallest = lazy::argmin(t);
  EXPECT_EQ(largest.shape(), Shape{});
  EXPECT_EQ(smallest.shape(), Shape{});
  EXPECT_EQ(largest.item<std::int64_t>(), 9);
  EXPECT_EQ(smallest.item<std::int64_t>(), 7);
}

// The last row has no NaN: NaN must not leak from one result into another.
const std::vector<double> kRowsWithNaN = {
    1,    kNaN, 3,  2,     //
    kNaN, 0,    5,  1,     //
    4,    2,    7,  kNaN,  //
    1,    1.5,  -2, 0.5,   //
};

class NaNHandling : public ::testing::TestWithParam<DType> {};

TEST_P(NaNHandling, MaxPropagatesNaN) {
  Tensor x = tensor_of(kRowsWithNaN, {4, 4}, GetParam());
  expect_exact(lazy::max(x, 1), {kNaN, kNaN, kNaN, 1.5});
  expect_exact(lazy::max(x), {kNaN});
}

TEST_P(NaNHandling, MinPropagatesNaN) {
  Tensor x = tensor_of(kRowsWithNaN, {4, 4}, GetParam());
  expect_exact(lazy::min(x, 1), {kNaN, kNaN, kNaN, -2});
  expect_exact(lazy::min(x), {kNaN});
}

TEST_P(NaNHandling, ArgmaxTakesTheFirstNaNAsTheLargest) {
  Tensor x = tensor_of({1, kNaN, 9, kNaN,  //
                        kNaN, 2, kNaN, 3,  //
                        9, 2, 3, kNaN,     //
                        1, 9, 9, 2},
                       {4, 4}, GetParam());
  expect_exact(lazy::argmax(x, 1), {1, 0, 3, 1});
  expect_exact(lazy::argmax(x), {1});
}

TEST_P(NaNHandling, ArgminTakesTheFirstNaNAsTheSmallest) {
  Tensor x = tensor_of({1, kNaN, -9, kNaN,  //
                        kNaN, 2, kNaN, -3,  //
                        -9, 2, 3, kNaN,     //
                        1, -9, -9, 2},
                       {4, 4}, GetParam());
  expect_exact(lazy::argmin(x, 1), {1, 0, 3, 1});
  expect_exact(lazy::argmin(x), {1});
}

TEST_P(NaNHandling, AnyAndAllCountNaNAsTrue) {
  Tensor x = tensor_of({kNaN, 0, kNaN, kNaN, 0, 0}, {3, 2}, GetParam());
  expect_exact(lazy::any(x, 1), {1, 1, 0});
  expect_exact(lazy::all(x, 1), {0, 1, 0});
}

INSTANTIATE_TEST_SUITE_P(FloatingDTypes, NaNHandling, ValuesIn(kFloatingDTypes), dtype_test_name);

// =============================================================================================
// Views, prologues and epilogues.

TEST(ReductionOfView, SumOverExpandedViewCountsEachRepeat) {
  std::vector<double> base =
      random_inputs(Inputs::signed_values, lazy::f32, 3, seed_of_current_test());
  Tensor x = tensor_of(base, {3, 1}, lazy::f32).expand(Shape{2, 3, 4});
  Tensor result = lazy::sum(x, {0, 2});
  EXPECT_EQ(result.shape(), Shape{3});
  expect_exact(result, {8 * base[0], 8 * base[1], 8 * base[2]});  // exact: times a power of 2
}

TEST(ReductionOfView, ArgmaxAlongABroadcastAxisIsZero) {
  std::vector<double> base =
      random_inputs(Inputs::signed_values, lazy::f32, 3, seed_of_current_test());
  Tensor x = tensor_of(base, {3, 1}, lazy::f32).expand(Shape{3, 5});
  expect_exact(lazy::argmax(x, 1), {0, 0, 0});
}

// x[i][j][k] of a [3, 4, 5] tensor, as the [5, 4, 3] tensor transpose(0, 2) shows it.
std::vector<double> transposed_0_2(const std::vector<double>& x) {
  std::vector<double> t(60);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k)
        t[std::size_t((k * 4 + j) * 3 + i)] = x[std::size_t((i * 4 + j) * 5 + k)];
  return t;
}

TEST(ReductionOfView, SumOverTransposedViewFoldsTheViewsAxes) {
  std::vector<double> x =
      random_inputs(Inputs::signed_values, lazy::f32, 60, seed_of_current_test());
  Tensor view = tensor_of(x, {3, 4, 5}, lazy::f32).transpose(0, 2);
  Tensor result = lazy::sum(view, {0, -1});
  Folding folding = fold(transposed_0_2(x), {5, 4, 3}, {0, -1}, false);
  EXPECT_EQ(result.shape(), folding.shape);
  std::vector<double> want, slack;
  for (const auto& group : folding.groups) {
    want.push_back(round_to(lazy::f32, sum_of(group)));
    slack.push_back(tolerance_of(lazy::f32) * sum_of_abs(group));
  }
  expect_close(result, want, slack);
}

TEST(ReductionOfView, ArgmaxOverTransposedViewIndexesTheView) {
  std::vector<double> x =
      random_inputs(Inputs::signed_values, lazy::f32, 60, seed_of_current_test());
  std::vector<double> t = transposed_0_2(x);
  Tensor view = tensor_of(x, {3, 4, 5}, lazy::f32).transpose(0, 2);
  expect_exact(lazy::argmax(view), {argmax_of(t)});
  std::vector<double> along_axis1;
  for (const auto& group : fold(t, {5, 4, 3}, {1}, false).groups)
    along_axis1.push_back(argmax_of(group));
  expect_exact(lazy::argmax(view, 1), along_axis1);
}

TEST(ReductionInExpression, PointwiseBeforeAndAfterASum) {
  std::vector<double> x =
      random_inputs(Inputs::signed_values, lazy::f32, 42, seed_of_current_test());
  std::vector<double> y =
      random_inputs(Inputs::signed_values, lazy::f32, 42, seed_of_current_test() + 1);
  Tensor tx = tensor_of(x, {6, 7}, lazy::f32);
  Tensor ty = tensor_of(y, {6, 7}, lazy::f32);
  Tensor result = lazy::sum(tx * ty + 1.0, 1) * 2.0 - 0.5;
  EXPECT_EQ(result.shape(), Shape{6});
  std::vector<double> want, slack;
  for (int r = 0; r < 6; ++r) {
    double s = 0, magnitude = 0;
    for (int c = 0; c < 7; ++c) {
      double term = x[std::size_t(r * 7 + c)] * y[std::size_t(r * 7 + c)] + 1;
      s += term;
      magnitude += std::fabs(term);
    }
    want.push_back(round_to(lazy::f32, s * 2 - 0.5));
    slack.push_back(tolerance_of(lazy::f32) * (2 * magnitude + 0.5));
  }
  expect_close(result, want, slack);
}

TEST(ReductionInExpression, MaxOfAbsoluteDifferenceThenExp) {
  std::vector<double> x =
      random_inputs(Inputs::signed_values, lazy::f32, 30, seed_of_current_test());
  std::vector<double> y =
      random_inputs(Inputs::signed_values, lazy::f32, 30, seed_of_current_test() + 1);
  Tensor result = lazy::exp(
      lazy::max(lazy::abs(tensor_of(x, {5, 6}, lazy::f32) - tensor_of(y, {5, 6}, lazy::f32)), 0));
  std::vector<double> want, slack;
  for (int c = 0; c < 6; ++c) {
    double m = 0;
    for (int r = 0; r < 5; ++r) {
      m = std::max(
          m, std::fabs(round_to(lazy::f32, x[std::size_t(r * 6 + c)] - y[std::size_t(r * 6 + c)])));
    }
    want.push_back(round_to(lazy::f32, std::exp(m)));
    slack.push_back(tolerance_of(lazy::f32) * want.back());
  }
  expect_close(result, want, slack);
}

// =============================================================================================
// Errors and empty axes.

struct NamedReduction {
  const char* name;
  Tensor (*op)(const Tensor& x, const lazy::Axes& axes);
};
void PrintTo(const NamedReduction& c, std::ostream* os) {
  *os << c.name;
}

// clang-format off
#define NAMED(name, call) {#name, [](const Tensor& x, const lazy::Axes& axes) { return call; }}
// clang-format on
const NamedReduction kEveryReduction[] = {
    NAMED(sum, lazy::sum(x, axes)),   NAMED(mean, lazy::mean(x, axes)),
    NAMED(prod, lazy::prod(x, axes)), NAMED(max, lazy::max(x, axes)),
    NAMED(min, lazy::min(x, axes)),   NAMED(logsumexp, lazy::logsumexp(x, axes)),
    NAMED(any, lazy::any(x, axes)),   NAMED(all, lazy::all(x, axes)),
    NAMED(var, lazy::var(x, axes)),   NAMED(std, lazy::std(x, axes)),
};
const NamedReduction kFloatingOnly[] = {
    NAMED(mean, lazy::mean(x, axes)),
    NAMED(var, lazy::var(x, axes)),
    NAMED(std, lazy::std(x, axes)),
    NAMED(softmax, lazy::softmax(x, axes.list().at(0))),
    NAMED(log_softmax, lazy::log_softmax(x, axes.list().at(0))),
};
#undef NAMED

std::string named_test_name(const ::testing::TestParamInfo<NamedReduction>& info) {
  return info.param.name;
}

class AxisErrors : public ::testing::TestWithParam<NamedReduction> {};

TEST_P(AxisErrors, AnAxisNamedTwiceThrowsAxisError) {
  Tensor x = tensor_of(random_inputs(Inputs::signed_values, lazy::f32, 12, 5), {3, 4}, lazy::f32);
  EXPECT_THROW(GetParam().op(x, {1, 1}), lazy::AxisError);
  EXPECT_THROW(GetParam().op(x, {0, -2}), lazy::AxisError);  // the same axis, counted from the end
}

TEST_P(AxisErrors, AnAxisOutOfRangeThrowsAxisError) {
  Tensor x = tensor_of(random_inputs(Inputs::signed_values, lazy::f32, 12, 6), {3, 4}, lazy::f32);
  EXPECT_THROW(GetParam().op(x, 2), lazy::AxisError);
  EXPECT_THROW(GetParam().op(x, -3), lazy::AxisError);
  EXPECT_THROW(GetParam().op(x, {0, 2}), lazy::AxisError);
}

INSTANTIATE_TEST_SUITE_P(EveryReduction, AxisErrors, ValuesIn(kEveryReduction), named_test_name);

TEST(ArgmaxAndArgmin, AnAxisOutOfRangeThrowsAxisError) {
  Tensor x = tensor_of(random_inputs(Inputs::signed_values, lazy::f32, 12, 7), {3, 4}, lazy::f32);
  EXPECT_THROW(lazy::argmax(x, 2), lazy::AxisError);
  EXPECT_THROW(lazy::argmin(x, -3), lazy::AxisError);
}

class NonFloatingInput : public ::testing::TestWithParam<std::tuple<NamedReduction, DType>> {};

TEST_P(NonFloatingInput, ThrowsDTypeError) {
  const auto& [op, dtype] = GetParam();
  Tensor x = tensor_of(random_inputs(Inputs::signed_values, dtype, 12, 8), {3, 4}, dtype);
  EXPECT_THROW(op.op(x, 1), lazy::DTypeError);
}

INSTANTIATE_TEST_SUITE_P(
    FloatingOnlyOps, NonFloatingInput,
    Combine(ValuesIn(kFloatingOnly), ValuesIn(kNonFloatingDTypes)),
    [](const ::testing::TestParamInfo<std::tuple<NamedReduction, DType>>& info) {
      return std::string(std::get<0>(info.param).name) + "_" +
             std::string(lazy::dtype_name(std::get<1>(info.param)));
    });

// max, min, argmax and argmin of no elements have nothing to return.
struct Extremum {
  const char* name;
  Tensor (*op)(const Tensor& x, std::optional<int> axis);
};
void PrintTo(const Extremum& c, std::ostream* os) {
  *os << c.name;
}
const Extremum kExtrema[] = {
    {"max", [](const Tensor& x,
               std::optional<int> a) { return lazy::max(x, a ? lazy::Axes(*a) : lazy::Axes()); }},
    {"min", [](const Tensor& x,
               std::optional<int> a) { return lazy::min(x, a ? lazy::Axes(*a) : lazy::Axes()); }},
    {"argmax", [](const Tensor& x, std::optional<int> a) { return lazy::argmax(x, a); }},
    {"argmin", [](const Tensor& x, std::optional<int> a) { return lazy::argmin(x, a); }},
};

class EmptyExtremum : public ::testing::TestWithParam<Extremum> {};

TEST_P(EmptyExtremum, OverAnAxisOfSizeZeroThrowsValueError) {
  EXPECT_THROW(GetParam().op(lazy::zeros(Shape{3, 0}), 1), lazy::ValueError);
  EXPECT_THROW(GetParam().op(lazy::zeros(Shape{0}), std::nullopt), lazy::ValueError);
  // The result would be empty too; PyTorch refuses it all the same (torch_check, seed 17401).
  EXPECT_THROW(GetParam().op(lazy::zeros(Shape{0, 3, 0}), 0), lazy::ValueError);
}

INSTANTIATE_TEST_SUITE_P(Extrema, EmptyExtremum, ValuesIn(kExtrema),
                         [](const ::testing::TestParamInfo<Extremum>& info) {
                           return std::string(info.param.name);
                         });

class SizeZeroAxis : public ::testing::TestWithParam<DType> {};

TEST_P(SizeZeroAxis, SumIsZero) {
  Tensor x = lazy::zeros(Shape{3, 0}, GetParam());
  Tensor result = lazy::sum(x, 1);
  EXPECT_EQ(result.dtype(), summed_dtype(GetParam()));
  EXPECT_EQ(result.shape(), Shape{3});
  expect_exact(result, {0, 0, 0});
  expect_exact(lazy::sum(x), {0});
}

TEST_P(SizeZeroAxis, ProdIsOne) {
  Tensor x = lazy::zeros(Shape{3, 0}, GetParam());
  Tensor result = lazy::prod(x, 1);
  EXPECT_EQ(result.dtype(), summed_dtype(GetParam()));
  EXPECT_EQ(result.shape(), Shape{3});
  expect_exact(result, {1, 1, 1});
  expect_exact(lazy::prod(x), {1});
}

TEST_P(SizeZeroAxis, AnyIsFalseAndAllIsTrue) {
  Tensor x = lazy::zeros(Shape{3, 0}, GetParam());
  expect_exact(lazy::any(x, 1), {0, 0, 0});
  expect_exact(lazy::all(x, 1), {1, 1, 1});
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, SizeZeroAxis, ValuesIn(kAllDTypes), dtype_test_name);

// As PyTorch: the log of an empty sum is -inf, and softmax of nothing is nothing.
TEST(Logsumexp, OverAnAxisOfSizeZeroIsMinusInfinity) {
  const double inf = std::numeric_limits<double>::infinity();
  expect_exact(lazy::logsumexp(lazy::zeros(Shape{2, 0}), 1), {-inf, -inf});
  const Tensor kept = lazy::logsumexp(lazy::zeros(Shape{2, 0}, lazy::bf16), -1, true);
  EXPECT_EQ(kept.shape(), (Shape{2, 1}));
  EXPECT_EQ(kept.dtype(), lazy::bf16);
  expect_exact(kept, {-inf, -inf});
}

TEST(Softmax, OverAnAxisOfSizeZeroIsEmpty) {
  const Tensor y = lazy::softmax(lazy::zeros(Shape{3, 0}));
  EXPECT_EQ(y.shape(), (Shape{3, 0}));
  EXPECT_EQ(lazy::log_softmax(lazy::zeros(Shape{0, 4}), 0).shape(), (Shape{0, 4}));
  EXPECT_THROW(lazy::softmax(lazy::zeros(Shape{3, 0}), 2), lazy::AxisError);
}

TEST(Mean, OverAnAxisOfSizeZeroIsNaN) {
  expect_exact(lazy::mean(lazy::zeros(Shape{2, 0}), 1), {kNaN, kNaN});
}

// =============================================================================================
// softmax, log_softmax, layer_norm, rms_norm against loops over rows in double.

// Large enough that leaving it out changes the result by several percent (inputs have variance
// and mean square near 3).
constexpr double kLayerNormEps = 0.5;
constexpr double kRmsNormEps = 0.5;

using Row = std::vector<double>;

Row softmax_of(const Row& x, const Row&, const Row&) {
  double m = max_of(x), s = 0;
  for (double v : x) s += std::exp(v - m);
  Row out;
  for (double v : x) out.push_back(std::exp(v - m) / s);
  return out;
}
Row log_softmax_of(const Row& x, const Row&, const Row&) {
  double m = max_of(x), s = 0;
  for (double v : x) s += std::exp(v - m);
  Row out;
  for (double v : x) out.push_back(v - m - std::log(s));
  return out;
}
// Biased variance, as PyTorch.
Row layer_norm_of(const Row& x, const Row& weight, const Row& bias) {
  double m = mean_of(x), v = var_of(x, 0);
  Row out;
  for (std::size_t i = 0; i < x.size(); ++i)
    out.push_back((x[i] - m) / std::sqrt(v + kLayerNormEps) * weight[i] + bias[i]);
  return out;
}
Row rms_norm_of(const Row& x, const Row& weight, const Row&) {
  double scale = 1 / std::sqrt(sum_of_squares(x) / double(x.size()) + kRmsNormEps);
  Row out;
  for (std::size_t i = 0; i < x.size(); ++i) out.push_back(x[i] * scale * weight[i]);
  return out;
}

struct NormCase {
  const char* name;
  Tensor (*op)(const Tensor& x, const Tensor& weight, const Tensor& bias);
  Row (*reference)(const Row& x, const Row& weight, const Row& bias);
  // Outputs lie in [0, 1] for softmax and are O(1) terms otherwise: their error is relative to
  // the output, or to 1 + |output| where the output cancels terms of size 1.
  bool relative_only;
};
void PrintTo(const NormCase& c, std::ostream* os) {
  *os << c.name;
}

const NormCase kNorms[] = {
    {"softmax", [](const Tensor& x, const Tensor&, const Tensor&) { return lazy::softmax(x); },
     softmax_of, true},
    {"log_softmax",
     [](const Tensor& x, const Tensor&, const Tensor&) { return lazy::log_softmax(x); },
     log_softmax_of, false},
    {"layer_norm",
     [](const Tensor& x, const Tensor& w, const Tensor& b) {
       return lazy::layer_norm(x, w, b, kLayerNormEps);
     },
     layer_norm_of, false},
    {"rms_norm",
     [](const Tensor& x, const Tensor& w, const Tensor&) {
       return lazy::rms_norm(x, w, kRmsNormEps);
     },
     rms_norm_of, false},
};

struct NormShape {
  const char* name;
  Dims dims;
};
void PrintTo(const NormShape& c, std::ostream* os) {
  *os << c.name;
}
// 2x65536: rows long enough that the softmax family folds them in chunks.
const NormShape kNormShapes[] = {
    {"4x37", {4, 37}}, {"3x5x64", {3, 5, 64}}, {"2x65536", {2, 65536}}};
constexpr DType kNormDTypes[] = {lazy::f32, lazy::bf16};

// Uniform in [lo, hi], exact in `dtype`.
std::vector<double> uniform_inputs(DType dtype, std::int64_t count, double lo, double hi,
                                   unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(lo, hi);
  std::vector<double> values(static_cast<std::size_t>(count));
  for (double& v : values) v = round_to(dtype, uniform(rng));
  expect_not_all_zeros(values);
  return values;
}

class Norm : public ::testing::TestWithParam<std::tuple<NormCase, DType, NormShape>> {};

TEST_P(Norm, MatchesLoopsOverTheLastAxis) {
  const auto& [norm, dtype, shape] = GetParam();
  const unsigned seed = seed_of_current_test();
  const std::int64_t n = shape.dims.back();
  std::vector<double> x = uniform_inputs(dtype, numel_of(shape.dims), -3, 3, seed);
  std::vector<double> weight = uniform_inputs(dtype, n, 0.5, 1.5, seed + 1);
  std::vector<double> bias = uniform_inputs(dtype, n, -1, 1, seed + 2);
  Tensor result = norm.op(tensor_of(x, shape.dims, dtype), tensor_of(weight, {n}, dtype),
                          tensor_of(bias, {n}, dtype));
  EXPECT_EQ(result.dtype(), dtype);
  EXPECT_EQ(result.shape(), shape_of(shape.dims));

  std::vector<double> want, slack;
  for (std::size_t start = 0; start < x.size(); start += std::size_t(n)) {
    Row row(x.begin() + std::ptrdiff_t(start), x.begin() + std::ptrdiff_t(start) + n);
    for (double v : norm.reference(row, weight, bias)) {
      want.push_back(round_to(dtype, v));
      slack.push_back(tolerance_of(dtype) * (norm.relative_only ? std::fabs(v) : 1 + std::fabs(v)));
    }
  }
  expect_close(result, want, slack);
}

std::string norm_test_name(
    const ::testing::TestParamInfo<std::tuple<NormCase, DType, NormShape>>& info) {
  const auto& [norm, dtype, shape] = info.param;
  return std::string(norm.name) + "_" + std::string(lazy::dtype_name(dtype)) + "_" + shape.name;
}

INSTANTIATE_TEST_SUITE_P(F32AndBf16, Norm,
                         Combine(ValuesIn(kNorms), ValuesIn(kNormDTypes), ValuesIn(kNormShapes)),
                         norm_test_name);

class SoftmaxRows : public ::testing::TestWithParam<std::tuple<DType, NormShape>> {};

TEST_P(SoftmaxRows, SumToOne) {
  const auto& [dtype, shape] = GetParam();
  const std::int64_t n = shape.dims.back();
  std::vector<double> x =
      uniform_inputs(dtype, numel_of(shape.dims), -3, 3, seed_of_current_test());
  std::vector<double> y = lazy::softmax(tensor_of(x, shape.dims, dtype)).to_vector<double>();
  for (std::size_t start = 0; start < y.size(); start += std::size_t(n)) {
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) s += y[start + std::size_t(i)];
    EXPECT_NEAR(s, 1.0, tolerance_of(dtype)) << "row starting at " << start;
  }
}

INSTANTIATE_TEST_SUITE_P(F32AndBf16, SoftmaxRows,
                         Combine(ValuesIn(kNormDTypes), ValuesIn(kNormShapes)),
                         [](const ::testing::TestParamInfo<std::tuple<DType, NormShape>>& info) {
                           return std::string(lazy::dtype_name(std::get<0>(info.param))) + "_" +
                                  std::get<1>(info.param).name;
                         });

TEST(Softmax, OfLargeValuesDoesNotOverflow) {
  Row x = {1000, 999, 998, 1000, 990};
  std::vector<double> got = lazy::softmax(tensor_of(x, {1, 5}, lazy::f32)).to_vector<double>();
  Row want = softmax_of(x, {}, {});
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_TRUE(std::isfinite(got[i])) << "element " << i;
    EXPECT_NEAR(got[i], want[i], tolerance_of(lazy::f32) * want[i]) << "element " << i;
  }
}

// Long rows fold in chunks, each chunk shifted by its own max; chunks of -inf and an infinite
// element must still give what one pass over the row gives: PyTorch's results.
TEST(Softmax, LongRowsWithInfinitiesMatchOnePassOverTheRow) {
  constexpr std::int64_t n = 65536;
  const double inf = std::numeric_limits<double>::infinity();
  Row x = uniform_inputs(lazy::f32, 3 * n, -3, 3, seed_of_current_test());
  for (std::int64_t i = 0; i < 16384; ++i) x[std::size_t(i)] = -inf;  // row 0: a chunk of -inf
  for (std::int64_t i = n; i < 2 * n; ++i) x[std::size_t(i)] = -inf;  // row 1: all -inf
  x[std::size_t(2 * n + 40000)] = inf;                                // row 2: one +inf
  const Tensor t = tensor_of(x, {3, n}, lazy::f32);
  const std::vector<double> soft = lazy::softmax(t).to_vector<double>();
  const std::vector<double> lse = lazy::logsumexp(t, -1).to_vector<double>();
  const Row row0(x.begin(), x.begin() + n);
  const Row want0 = softmax_of(row0, {}, {});
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_NEAR(soft[std::size_t(i)], want0[std::size_t(i)], 1e-5 * want0[std::size_t(i)]) << i;
  double s = 0;
  for (double v : row0) s += std::exp(v - max_of(row0));
  EXPECT_NEAR(lse[0], std::log(s) + max_of(row0), 1e-5);
  EXPECT_TRUE(std::isnan(soft[std::size_t(n)])) << "an all -inf row is NaN, as in PyTorch";
  EXPECT_EQ(lse[1], -inf);
  EXPECT_TRUE(std::isnan(soft[std::size_t(2 * n)])) << "a row with +inf is NaN, as in PyTorch";
  EXPECT_EQ(lse[2], inf);
}

TEST(NormArguments, AWeightOrBiasHoldsOneValuePerFeatureAndNothingIsRecordedOtherwise) {
  const Tensor x = lazy::ones({3, 4}), w = lazy::ones({4});
  for (const Shape& bad : {Shape{2, 3, 4}, Shape{3, 1}, Shape{}, Shape{1}, Shape{1, 4}}) {
    const Tensor other = lazy::ones(bad);
    lazy::eval({x, w, other});
    EXPECT_THROW(lazy::layer_norm(x, other, w), lazy::ShapeError) << bad.to_string();
    EXPECT_THROW(lazy::layer_norm(x, w, other), lazy::ShapeError) << bad.to_string();
    EXPECT_THROW(lazy::rms_norm(x, other), lazy::ShapeError) << bad.to_string();
    EXPECT_EQ(lazy::ir::Trace::current().size(), 0u) << "recorded before the check";
  }
}

// Found in review: an undefined weight or bias was refused; PyTorch takes None for either.
TEST(NormArguments, AnUndefinedWeightOrBiasIsLeftOut) {
  const Tensor x = lazy::from_data(std::vector<float>{1, 2, 4, -3, 0.5f, 7}, {2, 3});
  const Tensor ones = lazy::ones({3}), zeros = lazy::zeros({3}), b = lazy::full({3}, 0.25);
  EXPECT_EQ(lazy::layer_norm(x, Tensor(), Tensor()).to_vector<float>(),
            lazy::layer_norm(x, ones, zeros).to_vector<float>());
  EXPECT_EQ(lazy::layer_norm(x, Tensor(), b).to_vector<float>(),
            lazy::layer_norm(x, ones, b).to_vector<float>());
  EXPECT_EQ(lazy::rms_norm(x, Tensor()).to_vector<float>(),
            lazy::rms_norm(x, ones).to_vector<float>());
  const Tensor g = lazy::grad(
      [](auto t) { return lazy::sum(lazy::layer_norm(t[0], Tensor(), Tensor()) * t[0]); })({x})[0];
  const Tensor g_with = lazy::grad(
      [&](auto t) { return lazy::sum(lazy::layer_norm(t[0], ones, zeros) * t[0]); })({x})[0];
  EXPECT_EQ(g.to_vector<float>(), g_with.to_vector<float>());
}

TEST(NormArguments, RmsNormsEpsDefaultsToF32sMachineEpsilon) {
  // Rows of 1e-3: mean(x^2) = 1e-6 is as large as an eps of 1e-6, far larger than 2^-23.
  const Tensor x = lazy::full({2}, 1e-3), w = lazy::ones({2});
  const double want = 1e-3 / std::sqrt(1e-6 + 0x1p-23);
  EXPECT_NEAR(lazy::rms_norm(x, w).to_vector<double>()[0], want, 1e-5);
}

TEST(Softmax, AlongTheFirstAxisNormalizesColumns) {
  std::vector<double> x = uniform_inputs(lazy::f32, 24, -3, 3, seed_of_current_test());
  Tensor result = lazy::softmax(tensor_of(x, {6, 4}, lazy::f32), 0);
  std::vector<double> want(24), slack(24);
  for (int c = 0; c < 4; ++c) {
    Row column;
    for (int r = 0; r < 6; ++r) column.push_back(x[std::size_t(r * 4 + c)]);
    Row s = softmax_of(column, {}, {});
    for (int r = 0; r < 6; ++r) {
      want[std::size_t(r * 4 + c)] = round_to(lazy::f32, s[std::size_t(r)]);
      slack[std::size_t(r * 4 + c)] = tolerance_of(lazy::f32) * s[std::size_t(r)];
    }
  }
  expect_close(result, want, slack);
}

TEST(Logsumexp, OfLargeValuesDoesNotOverflow) {
  Row x = {1000, 999, 998, 1000, 990};
  Tensor result = lazy::logsumexp(tensor_of(x, {5}, lazy::f32));
  double want = logsumexp_of(x);
  expect_close(result, {round_to(lazy::f32, want)}, {tolerance_of(lazy::f32) * want});
}

TEST(Logsumexp, OfOnlyNegativeInfinityIsNegativeInfinity) {
  Tensor result = lazy::logsumexp(tensor_of({-kInf, -kInf, 1, 2}, {2, 2}, lazy::f32), 1);
  expect_close(result, {-kInf, round_to(lazy::f32, logsumexp_of({1, 2}))},
               {0, tolerance_of(lazy::f32) * 3});
}

}  // namespace
