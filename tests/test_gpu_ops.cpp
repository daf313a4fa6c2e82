// Every op and dtype, run as generated kernels on the GPU, against the reference evaluator on the
// same fresh random inputs, with every output poisoned before its kernel runs. Skipped without a
// GPU.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "ir/op_reference.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::expect_matches_reference;
using lazy_test::fresh_seed;
using lazy_test::GpuTest;

const DType kAllDTypes[] = {DType::f32, DType::f16, DType::bf16,
                            DType::i32, DType::i64, DType::bool_};

// Random values of a dtype, computed (not pending): floats ~N(0, 4), integers in about
// [-150, 150], bools half true.
Tensor random_input(DType dtype, const Shape& shape, std::uint64_t seed) {
  Tensor normal = lazy::randn(shape, seed);
  Tensor x;
  if (lazy::is_floating(dtype)) {
    x = (normal * 2.0f).to(dtype);
  } else if (dtype == DType::bool_) {
    x = normal > 0.0f;
  } else {
    x = (normal * 50.0f).to(dtype);
  }
  lazy::eval({x});
  return x;
}

// Runs f over the inputs if the op accepts their dtypes (an op that refuses throws DTypeError at
// record time: nothing to run).
bool accepts(const std::function<Tensor()>& f) {
  try {
    Tensor t = f();
    lazy::ir::Trace::current().clear();
    return true;
  } catch (const lazy::DTypeError&) {
    return false;
  }
}

using Unary = std::function<Tensor(const Tensor&)>;
const std::vector<std::pair<std::string, Unary>> kUnaryOps = {
    {"neg", [](const Tensor& x) { return -x; }},
    {"abs", [](const Tensor& x) { return lazy::abs(x); }},
    {"sign", [](const Tensor& x) { return lazy::sign(x); }},
    {"square", [](const Tensor& x) { return lazy::square(x); }},
    {"relu", [](const Tensor& x) { return lazy::relu(x); }},
    {"floor", [](const Tensor& x) { return lazy::floor(x); }},
    {"ceil", [](const Tensor& x) { return lazy::ceil(x); }},
    {"round", [](const Tensor& x) { return lazy::round(x); }},
    {"exp", [](const Tensor& x) { return lazy::exp(x); }},
    {"exp2", [](const Tensor& x) { return lazy::exp2(x); }},
    {"log", [](const Tensor& x) { return lazy::log(x); }},
    {"log2", [](const Tensor& x) { return lazy::log2(x); }},
    {"log1p", [](const Tensor& x) { return lazy::log1p(x); }},
    {"expm1", [](const Tensor& x) { return lazy::expm1(x); }},
    {"sqrt", [](const Tensor& x) { return lazy::sqrt(x); }},
    {"rsqrt", [](const Tensor& x) { return lazy::rsqrt(x); }},
    {"sin", [](const Tensor& x) { return lazy::sin(x); }},
    {"cos", [](const Tensor& x) { return lazy::cos(x); }},
    {"tanh", [](const Tensor& x) { return lazy::tanh(x); }},
    {"erf", [](const Tensor& x) { return lazy::erf(x); }},
    {"sigmoid", [](const Tensor& x) { return lazy::sigmoid(x); }},
    {"reciprocal", [](const Tensor& x) { return lazy::reciprocal(x); }},
    {"gelu", [](const Tensor& x) { return lazy::gelu(x); }},
    {"gelu_tanh", [](const Tensor& x) { return lazy::gelu_tanh(x); }},
    {"silu", [](const Tensor& x) { return lazy::silu(x); }},
    {"softplus", [](const Tensor& x) { return lazy::softplus(x * 8.0f); }},
    {"logical_not", [](const Tensor& x) { return lazy::logical_not(x); }},
    {"isnan", [](const Tensor& x) { return lazy::isnan(lazy::log(x)); }},
    {"isinf", [](const Tensor& x) { return lazy::isinf(x / (x - x.to(x.dtype()))); }},
    {"clamp", [](const Tensor& x) { return lazy::clamp(x, -1, 2); }},
    {"bitwise_not", [](const Tensor& x) { return ~x; }},
    {"tan", [](const Tensor& x) { return lazy::tan(x); }},
    {"asin", [](const Tensor& x) { return lazy::asin(x * 0.25f); }},
    {"acos", [](const Tensor& x) { return lazy::acos(x * 0.25f); }},
    {"atan", [](const Tensor& x) { return lazy::atan(x); }},
    {"sinh", [](const Tensor& x) { return lazy::sinh(x); }},
    {"cosh", [](const Tensor& x) { return lazy::cosh(x); }},
    {"asinh", [](const Tensor& x) { return lazy::asinh(x); }},
    {"acosh", [](const Tensor& x) { return lazy::acosh(x); }},  // NaN below 1
    {"atanh", [](const Tensor& x) { return lazy::atanh(x * 0.25f); }},
    {"log10", [](const Tensor& x) { return lazy::log10(x); }},
    {"isfinite", [](const Tensor& x) { return lazy::isfinite(x / (x - x.to(x.dtype()))); }},
    {"nan_to_num", [](const Tensor& x) { return lazy::nan_to_num(lazy::log(x) / x); }},
};

using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;
const std::vector<std::pair<std::string, Binary>> kBinaryOps = {
    {"add", [](const Tensor& a, const Tensor& b) { return a + b; }},
    {"sub", [](const Tensor& a, const Tensor& b) { return a - b; }},
    {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }},
    {"div", [](const Tensor& a, const Tensor& b) { return a / b; }},
    {"pow", [](const Tensor& a, const Tensor& b) { return lazy::pow(a, b); }},
    {"maximum", [](const Tensor& a, const Tensor& b) { return lazy::maximum(a, b); }},
    {"minimum", [](const Tensor& a, const Tensor& b) { return lazy::minimum(a, b); }},
    {"floor_divide", [](const Tensor& a, const Tensor& b) { return lazy::floor_divide(a, b); }},
    {"remainder", [](const Tensor& a, const Tensor& b) { return a % b; }},
    {"fmod", [](const Tensor& a, const Tensor& b) { return lazy::fmod(a, b); }},
    {"atan2", [](const Tensor& a, const Tensor& b) { return lazy::atan2(a, b); }},
    {"hypot", [](const Tensor& a, const Tensor& b) { return lazy::hypot(a, b); }},
    {"logaddexp", [](const Tensor& a, const Tensor& b) { return lazy::logaddexp(a, b); }},
    {"lerp", [](const Tensor& a, const Tensor& b) { return lazy::lerp(a, b, 0.375); }},
    {"lerp by tensor",
     [](const Tensor& a, const Tensor& b) { return lazy::lerp(a, b, lazy::sigmoid(b)); }},
    {"eq", [](const Tensor& a, const Tensor& b) { return a == b; }},
    {"ne", [](const Tensor& a, const Tensor& b) { return a != b; }},
    {"lt", [](const Tensor& a, const Tensor& b) { return a < b; }},
    {"le", [](const Tensor& a, const Tensor& b) { return a <= b; }},
    {"gt", [](const Tensor& a, const Tensor& b) { return a > b; }},
    {"ge", [](const Tensor& a, const Tensor& b) { return a >= b; }},
    {"logical_and", [](const Tensor& a, const Tensor& b) { return lazy::logical_and(a, b); }},
    {"logical_or", [](const Tensor& a, const Tensor& b) { return lazy::logical_or(a, b); }},
    {"logical_xor", [](const Tensor& a, const Tensor& b) { return lazy::logical_xor(a, b); }},
    {"where", [](const Tensor& a, const Tensor& b) { return lazy::where(a > b, a, b); }},
    {"bitwise_and", [](const Tensor& a, const Tensor& b) { return a & b; }},
    {"bitwise_or", [](const Tensor& a, const Tensor& b) { return a | b; }},
    {"bitwise_xor", [](const Tensor& a, const Tensor& b) { return a ^ b; }},
    // Counts of about [-150, 150]: most shift every bit out, or count below 0.
    {"bitwise_left_shift", [](const Tensor& a, const Tensor& b) { return a << b; }},
    {"bitwise_right_shift", [](const Tensor& a, const Tensor& b) { return a >> b; }},
    {"bitwise_left_shift in range", [](const Tensor& a, const Tensor& b) { return a << (b & 31); }},
    {"bitwise_right_shift in range",
     [](const Tensor& a, const Tensor& b) { return a >> (b & 31); }},
};

// Odd sizes (no multiple of any vector width) and aligned ones.
const Shape kShapes[] = {Shape{33, 257}, Shape{8, 512}};

class GpuOps : public GpuTest {};

TEST_F(GpuOps, EveryUnaryOpAndDTypeMatchesTheReference) {
  for (const Shape& shape : kShapes) {
    for (DType dtype : kAllDTypes) {
      Tensor x = random_input(dtype, shape, fresh_seed());
      for (const auto& [name, op] : kUnaryOps) {
        if (!accepts([&] { return op(x); })) continue;
        expect_matches_reference(
            [&] { return std::vector{op(x)}; },
            name + " " + std::string(lazy::dtype_name(dtype)) + " " + shape.to_string());
      }
    }
  }
}

TEST_F(GpuOps, EveryBinaryOpAndDTypeMatchesTheReference) {
  for (const Shape& shape : kShapes) {
    for (DType dtype : kAllDTypes) {
      Tensor a = random_input(dtype, shape, fresh_seed());
      Tensor b = random_input(dtype, shape, fresh_seed());
      Tensor row = random_input(dtype, Shape{shape[1]}, fresh_seed());
      for (const auto& [name, op] : kBinaryOps) {
        std::string what =
            name + " " + std::string(lazy::dtype_name(dtype)) + " " + shape.to_string();
        if (!accepts([&] { return op(a, b); })) continue;
        expect_matches_reference([&] { return std::vector{op(a, b)}; }, what);
        expect_matches_reference([&] { return std::vector{op(a, row)}; }, what + " broadcast row");
      }
    }
  }
}

TEST_F(GpuOps, NumbersOnEitherSideMatchTheReference) {
  for (DType dtype : kAllDTypes) {
    Tensor x = random_input(dtype, Shape{33, 257}, fresh_seed());
    std::string what = std::string(lazy::dtype_name(dtype));
    if (dtype != DType::bool_) {
      expect_matches_reference([&] { return std::vector{x * 1.2f + 3, 2.5f - x, x / 3.0f}; }, what);
      expect_matches_reference(
          [&] {
            return std::vector{lazy::maximum(x, 0), x > 0.1f, x == 2};
          },
          what);
    }
    expect_matches_reference([&] { return std::vector{lazy::where(x != 0, x, 7)}; }, what);
  }
}

TEST_F(GpuOps, CastsBetweenEveryPairOfDTypesMatchTheReference) {
  for (DType from : kAllDTypes) {
    Tensor x = random_input(from, Shape{33, 257}, fresh_seed());
    for (DType to : kAllDTypes) {
      expect_matches_reference(
          [&] { return std::vector{x.to(to)}; },
          std::string(lazy::dtype_name(from)) + " to " + std::string(lazy::dtype_name(to)));
    }
  }
}

TEST_F(GpuOps, MixedDTypeOperandsPromoteAsOnTheHost) {
  Tensor h = random_input(DType::f16, Shape{64, 64}, fresh_seed());
  Tensor b = random_input(DType::bf16, Shape{64, 64}, fresh_seed());
  Tensor i = random_input(DType::i32, Shape{64, 64}, fresh_seed());
  Tensor l = random_input(DType::i64, Shape{64}, fresh_seed());
  Tensor z = lazy::full({}, 0.1);
  expect_matches_reference([&] { return std::vector{h + b, i * b, i + l, h * z, i / l, b == 0.1}; },
                           "mixed dtypes");
}

// Found in review: a computed f16 or bf16 value is kept unrounded in a kernel; an op whose result
// jumps read it so, where the reference reads it rounded. (1 + e)(2 - 2e) is 2 - 2e^2, which the
// dtype (its ulp at 1 is e) rounds to 2: floor, floor_divide, a cast and == saw 1.99999... .
TEST_F(GpuOps, OpsWhoseResultJumpsReadAComputedHalfPrecisionValueRounded) {
  for (DType dtype : {DType::f16, DType::bf16}) {
    const double e = std::ldexp(1.0, dtype == DType::f16 ? -10 : -7);
    const Tensor a = lazy::full({4}, 1 + e, DType::f32).to(dtype);
    const Tensor b = lazy::full({4}, 2 - 2 * e, DType::f32).to(dtype);
    lazy::eval({a, b});
    expect_matches_reference(
        [&] {
          const Tensor x = a * b;
          return std::vector<Tensor>{
              lazy::floor(x), lazy::floor_divide(x, 1), lazy::remainder(x, 1), lazy::fmod(x, 1),
              lazy::eq(x, 2), x.to(DType::i32),         lazy::round(x),        lazy::trunc(x)};
        },
        std::string(lazy::dtype_name(dtype)), 0);
  }
}

// Found in review: folds that pick or test elements (argmax, argmin, any, all, cummax, sort,
// top-k) read a computed f16 or bf16 value unrounded, so values that tie once rounded did not
// tie: 2 against (1 + e)(2 - 2e) = 2 - 2e^2, which the dtype rounds to 2.
TEST_F(GpuOps, FoldsThatPickOrTestReadAComputedHalfPrecisionValueRounded) {
  for (DType dtype : {DType::f16, DType::bf16}) {
    const double e = std::ldexp(1.0, dtype == DType::f16 ? -10 : -7);
    const auto from = [&](std::vector<float> values) {
      const std::int64_t n = std::int64_t(values.size());
      return lazy::from_data(values, {n}, DType::f32).to(dtype);
    };
    // Rounded, both rows are [2, 2]: every fold must treat them as a tie.
    const Tensor a = from({1, float(1 + e)}), b = from({2, float(2 - 2 * e)});
    const Tensor c = from({float(1 + e), 1}), d = from({float(2 - 2 * e), 2});
    lazy::eval({a, b, c, d});
    // Each fold reads its own product, so that the product runs inside the fold's kernel.
    expect_matches_reference(
        [&] {
          return std::vector<Tensor>{lazy::argmin(a * b),
                                     lazy::argmax(c * d),
                                     lazy::cummax(a * b, 0).indices,
                                     lazy::cummin(c * d, 0).indices,
                                     lazy::argsort(a * b),
                                     lazy::topk(c * d, 1).indices,
                                     lazy::topk(a * b, 1, -1, false).indices};
        },
        std::string(lazy::dtype_name(dtype)) + " ties", 0);
  }
  // 1e-8 is 0 in f16: any and all see zeros.
  const Tensor ones = lazy::full({3}, 1.0, DType::f16);
  lazy::eval({ones});
  expect_matches_reference(
      [&] {
        return std::vector<Tensor>{lazy::any(ones * 1e-8), lazy::all(ones * 1e-8)};
      },
      "f16 underflow", 0);
}

// Found in review: f32 multiplies and adds were contracted into fmas, whose unrounded product
// made floor(0.7f * 10 - 7) -1, sqrt(0.1f^2 - 0.1f^2) NaN and 2e38 * 2 - 2e38 finite where eager
// code (and the reference) round each op.
TEST_F(GpuOps, MultipliesAndAddsRoundEachAsEagerCodeDoes) {
  const auto from = [](std::vector<float> values) {
    const auto n = std::int64_t(values.size());
    return lazy::from_data(values, {n});
  };
  const Tensor x = from({0.7f}), a = from({0.1f, 0.3f, 1.1f}), b = from({0.1f, 0.3f, 1.1f});
  const Tensor big = from({2e38f});
  lazy::eval({x, a, b, big});
  expect_matches_reference(
      [&] {
        return std::vector<Tensor>{lazy::floor(x * 10.0f - 7.0f), lazy::sqrt(a * a - b * b),
                                   big * 2.0f - big};
      },
      "products and sums", 0);
}

TEST_F(GpuOps, RandomFactoriesEqualTheReferenceValues) {
  std::uint64_t seed = fresh_seed();
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    // Uniform draws are exact in both; normal draws differ by f32 rounding of log/cos.
    expect_matches_reference(
        [&] {
          return std::vector{lazy::rand({1000, 37}, seed, dtype)};
        },
        "rand", 0.0);
    expect_matches_reference(
        [&] {
          return std::vector{lazy::randn({1000, 37}, seed, dtype)};
        },
        "randn");
  }
  expect_matches_reference([&] { return std::vector{lazy::arange(-5, 1000003, 3)}; }, "arange", 0);
  expect_matches_reference([&] { return std::vector{lazy::arange(0.5, 4000.0, 0.25)}; },
                           "arange f");
  expect_matches_reference(
      [&] {
        return std::vector{lazy::full({7, 9}, 2.5, lazy::bf16)};
      },
      "full", 0);
}

}  // namespace

namespace {

// LAZY_FAST_MATH's documented bound (docs/semantics.md): within 1e-3 of the reference, relative
// to |reference| + rms(reference), for arguments within [-10, 10].
constexpr double kFastMathTolerance = 1e-3;

TEST_F(GpuOps, FastMathStaysWithinItsDocumentedBound) {
  Tensor x = lazy::clamp(lazy::randn({4096, 33}, fresh_seed()) * 4.0f, -10, 10);
  Tensor y = lazy::randn({4096, 33}, fresh_seed());
  lazy::eval({x, y});
  const std::vector<std::pair<std::string, std::function<Tensor()>>> ops = {
      {"tanh", [&] { return lazy::tanh(x); }},
      {"sigmoid", [&] { return lazy::sigmoid(x); }},
      {"exp", [&] { return lazy::exp(x); }},
      {"log", [&] { return lazy::log(lazy::abs(x) + 0.01f); }},
      {"sin", [&] { return lazy::sin(x); }},
      {"cos", [&] { return lazy::cos(x); }},
      {"sqrt", [&] { return lazy::sqrt(lazy::abs(x)); }},
      {"div", [&] { return x / (lazy::abs(y) + 0.5f); }},
      {"chain16",
       [&] {
         Tensor v = x;
         for (int i = 0; i < 4; ++i) v = lazy::tanh(lazy::sigmoid(v * 1.01f + 0.1f) - 0.25f) * 0.9f;
         return v;
       }},
  };
  lazy::set_fast_math(true);
  for (const auto& [name, op] : ops) {
    expect_matches_reference([&] { return std::vector{op()}; }, "fast " + name, kFastMathTolerance);
  }
  lazy::set_fast_math(false);
}

}  // namespace

namespace {

TEST_F(GpuOps, DefaultTanhAndSigmoidAreWithinAFewUlp) {
  // Both branches of lz_tanh (|x| below and above 0.6) and sigmoid's whole range.
  Tensor x = lazy::arange(-10.0, 10.0, 1.0 / 4096);
  lazy::eval({x});
  constexpr double kFewUlp = 4e-7;  // relative to |reference| + rms(reference)
  expect_matches_reference([&] { return std::vector{lazy::tanh(x)}; }, "tanh", kFewUlp);
  expect_matches_reference([&] { return std::vector{lazy::tanh(x * 0.01f)}; }, "tanh small",
                           kFewUlp);
  expect_matches_reference([&] { return std::vector{lazy::sigmoid(x * 2.0f)}; }, "sigmoid", 2e-6);
}

// tanh is odd: -0 stays -0, as C's tanhf and PyTorch give (its polynomial once gave +0).
TEST_F(GpuOps, TanhKeepsTheSignOfZero) {
  const Tensor zeros = lazy::from_data(std::vector<float>{-0.0f, 0.0f}, {2});
  const std::vector<float> got = lazy::tanh(zeros).to_vector<float>();
  EXPECT_TRUE(got[0] == 0.0f && std::signbit(got[0])) << got[0];
  EXPECT_TRUE(got[1] == 0.0f && !std::signbit(got[1])) << got[1];
}

// gelu_tanh divides x by 1 + exp(-2u) approximately, which would give 0 past a divisor of 2^126
// (from x = -10.00, where the quotient is still about 1e-37): it scales both sides first.
TEST_F(GpuOps, GeluTanhKeepsItsTinyValuesPastADivisorOf2To126) {
  const std::vector<float> xs = {-10.05f, -10.03f, -10.01f, -9.5f, -7.0f, -3.0f, -0.5f, 0.5f, 3.0f};
  const std::vector<float> got =
      lazy::gelu_tanh(lazy::from_data(xs, {std::int64_t(xs.size())})).to_vector<float>();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i], want = lazy::ir::reference::gelu_tanh(x);
    // exp amplifies u's rounding by 2|u| (up to 88): 1e-5 relative.
    EXPECT_NEAR(got[i] / want, 1.0, 1e-4) << "x = " << x << ": " << got[i] << ", want " << want;
  }
}

}  // namespace
