// Reductions and the normalizations built from them, as generated kernels on the GPU, against the
// reference evaluator on the same fresh random inputs, outputs poisoned. Skipped without a GPU.
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gpu_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::expect_matches_reference;
using lazy_test::GpuTest;
using lazy_test::kSumTolerance;
using lazy_test::random_input;

class GpuReductions : public GpuTest {};

TEST_F(GpuReductions, EveryReductionOverEveryAxisSetMatchesTheReference) {
  const Shape shape{5, 33, 64};
  const std::vector<lazy::Axes> axis_sets = {lazy::Axes{}, 0, 1, -1, {0, 2}, {1, 2}};
  for (DType dtype : {DType::f32, DType::bf16, DType::i32, DType::bool_}) {
    Tensor x = random_input(dtype, shape);
    for (const lazy::Axes& axes : axis_sets) {
      for (bool keepdim : {false, true}) {
        std::string what =
            std::string(lazy::dtype_name(dtype)) + " keepdim " + std::to_string(keepdim);
        // A bf16 result rounds an f32 sum on the GPU and a double one in the reference: where
        // the two straddle a bf16 rounding boundary they are a bf16 ulp apart.
        const double sum_tol = dtype == DType::f32        ? kSumTolerance
                               : lazy::is_floating(dtype) ? lazy_test::tolerance_for(dtype)
                                                          : 0;
        expect_matches_reference([&] { return std::vector{lazy::sum(x, axes, keepdim)}; },
                                 "sum " + what, sum_tol);
        expect_matches_reference(
            [&] {
              return std::vector{lazy::max(x, axes, keepdim), lazy::min(x, axes, keepdim)};
            },
            "max/min " + what, 0);
        expect_matches_reference(
            [&] {
              return std::vector{lazy::any(x, axes, keepdim), lazy::all(x, axes, keepdim)};
            },
            "any/all " + what, 0);
        if (lazy::is_floating(dtype)) {
          expect_matches_reference(
              [&] {
                return std::vector{lazy::mean(x, axes, keepdim), lazy::var(x, axes, 1, keepdim)};
              },
              "mean/var " + what, sum_tol);
        }
      }
    }
    for (std::optional<int> axis : {std::optional<int>{}, std::optional<int>{1}}) {
      expect_matches_reference(
          [&] {
            return std::vector{lazy::argmax(x, axis), lazy::argmin(x, axis)};
          },
          "argmax/argmin " + std::string(lazy::dtype_name(dtype)), 0);
    }
  }
}

TEST_F(GpuReductions, PrologueAndEpilogueAroundAReduction) {
  Tensor x = random_input(DType::f32, {64, 1000});
  Tensor w = random_input(DType::f32, {1000});
  expect_matches_reference(
      [&] { return std::vector{lazy::exp(lazy::sum(lazy::tanh(x * w) + 1.0f, -1) * 0.01f)}; },
      "prologue/epilogue", kSumTolerance);
  expect_matches_reference([&] { return std::vector{lazy::sum(x.transpose(0, 1), 0)}; },
                           "over a transposed view", kSumTolerance);
  expect_matches_reference(
      [&] {
        return std::vector{lazy::sum(w.broadcast_to({7, 1000}), 1)};
      },
      "over a broadcast", kSumTolerance);
}

TEST_F(GpuReductions, NormalizationsMatchTheReference) {
  for (DType dtype : {DType::f32, DType::bf16}) {
    Tensor x = random_input(dtype, {16, 4096});
    Tensor w = random_input(dtype, {4096});
    Tensor b = random_input(dtype, {4096});
    std::string what(lazy::dtype_name(dtype));
    double tol = dtype == DType::f32 ? 1e-4 : lazy_test::tolerance_for(dtype);
    expect_matches_reference(
        [&] {
          return std::vector{lazy::softmax(x), lazy::log_softmax(x)};
        },
        "softmax " + what, tol);
    expect_matches_reference([&] { return std::vector{lazy::layer_norm(x, w, b)}; },
                             "layer_norm " + what, tol);
    expect_matches_reference([&] { return std::vector{lazy::rms_norm(x + b, w)}; },
                             "rms_norm " + what, tol);
    expect_matches_reference([&] { return std::vector{lazy::logsumexp(x, -1)}; },
                             "logsumexp " + what, tol);
  }
}

TEST_F(GpuReductions, LongAndShortRows) {
  Tensor long_rows = random_input(DType::f32, {4, 1 << 20});
  Tensor short_rows = random_input(DType::f32, {1 << 16, 32});
  expect_matches_reference(
      [&] {
        return std::vector{lazy::softmax(long_rows), lazy::log_softmax(long_rows),
                           lazy::logsumexp(long_rows, -1)};
      },
      "long rows", 1e-4);
  expect_matches_reference([&] { return std::vector{lazy::softmax(short_rows)}; }, "short rows",
                           1e-4);
  Tensor odd = random_input(DType::f32, {1000003});
  expect_matches_reference(
      [&] {
        return std::vector{lazy::sum(odd), lazy::max(odd)};
      },
      "1000003", 1e-4);
}

// Found in review: a full bf16 sum in chunks rounded the chunks' total, the rest and their sum
// (2129920 here); rounded once, as PyTorch's, it is 2113536.
TEST_F(GpuReductions, AChunkedHalfSumRoundsOnce) {
  for (lazy::DType dtype : {lazy::bf16, lazy::f16}) {
    const lazy::Tensor x = lazy::ones({129 * 16384 + 8191}, dtype);
    lazy::eval({x});
    const float once = lazy::sum(x.to(lazy::f32)).to(dtype).item<float>();
    EXPECT_EQ(lazy::sum(x).item<float>(), once) << lazy::dtype_name(dtype);
  }
  EXPECT_EQ(lazy::sum(lazy::ones({129 * 16384 + 8191}, lazy::bf16)).item<float>(), 2113536.0f);
}

TEST_F(GpuReductions, SameInputGivesBitwiseEqualResults) {
  Tensor x = random_input(DType::f32, {1 << 22});
  std::vector<float> first = lazy::sum(x).to_vector<float>();
  std::vector<float> second = lazy::sum(x).to_vector<float>();
  EXPECT_EQ(first, second);
}

// Issue 5's kernel counts, launched on the GPU, each checked against the reference: softmax,
// layer_norm, a residual add with rms_norm keeping both outputs, and a reduction with a pointwise
// prologue and epilogue are one kernel each; short rows and rows looped over too. Rows folded in
// chunks take three.
TEST_F(GpuReductions, ReduceThenBroadcastKernelLaunches) {
  const Tensor x = random_input(DType::f32, {300, 1000});
  const Tensor r = random_input(DType::f32, {300, 1000});
  const Tensor w = random_input(DType::f32, {1000});
  const Tensor b = random_input(DType::f32, {1000});
  const Tensor short_rows = random_input(DType::f32, {1 << 20, 32});
  const Tensor looped_rows = random_input(DType::f32, {256, 40000});
  const Tensor long_rows = random_input(DType::f32, {256, 1 << 16});
  struct Case {
    std::string what;
    std::function<std::vector<Tensor>()> program;
    std::int64_t launches = 1;
  };
  const std::vector<Case> cases = {
      {"softmax", [&] { return std::vector{lazy::softmax(x)}; }},
      {"layer_norm", [&] { return std::vector{lazy::layer_norm(x, w, b)}; }},
      {"add + rms_norm",
       [&] {
         Tensor h = x + r;
         return std::vector{h, lazy::rms_norm(h, w)};
       }},
      {"prologue and epilogue",
       [&] { return std::vector{lazy::sqrt(lazy::sum(lazy::abs(x) * 2.0f, -1) + 1.0f)}; }},
      {"short rows", [&] { return std::vector{lazy::softmax(short_rows)}; }},
      // Too long to hold, one kernel loops over each row.
      {"looped rows", [&] { return std::vector{lazy::softmax(looped_rows)}; }},
      // Longer still, chunks of each row fold in one pass (their max and sum of exp), their
      // values fold per row, then the output is written: three kernels, two reads of the input.
      {"rows folded in chunks", [&] { return std::vector{lazy::softmax(long_rows)}; }, 3},
  };
  for (const Case& c : cases) {
    lazy::reset_stats();
    std::vector<Tensor> outputs = c.program();
    lazy::eval(outputs);
    EXPECT_EQ(lazy::stats().kernel_launches, c.launches) << c.what;
    expect_matches_reference(c.program, c.what, kSumTolerance);
  }
}

// Loads that every row reads alike (a norm's weight and bias) are held in registers: before the
// loop over rows when they fit (f32), with each row otherwise (bf16). Checked at every row width
// the launch distinguishes, contiguous and strided, and in a dtype other than the row's.
TEST_F(GpuReductions, WeightsSharedByEveryRowMatchTheReference) {
  for (std::int64_t extent : {5, 24, 300, 4096, 40000}) {
    for (DType dtype : {DType::f32, DType::bf16}) {
      const Tensor x = random_input(dtype, {67, extent});
      const Tensor w = random_input(dtype, {extent});
      const Tensor b = random_input(DType::f32, {extent});
      const Tensor strided = random_input(dtype, {2 * extent}).slice(0, 0, 2 * extent, 2);
      const std::string what =
          std::string(lazy::dtype_name(dtype)) + " rows of " + std::to_string(extent);
      const double tol = dtype == DType::f32 ? 1e-4 : lazy_test::tolerance_for(dtype);
      expect_matches_reference(
          [&] {
            return std::vector{lazy::layer_norm(x, w, b), lazy::rms_norm(x, strided)};
          },
          what, tol);
    }
  }
}

// Every row width the launch choice distinguishes (a slice of a warp, a whole warp, a block
// holding the row, a block looping over it), and byte-wide vectors (bool rows and columns).
TEST_F(GpuReductions, EveryRowWidthAndByteVectors) {
  for (std::int64_t extent : {5, 24, 100, 300, 512, 1000, 4096, 40000}) {
    for (DType dtype : {DType::f32, DType::bf16}) {
      const Tensor x = random_input(dtype, {67, extent});
      const std::string what =
          std::string(lazy::dtype_name(dtype)) + " rows of " + std::to_string(extent);
      // bf16 results round once on the GPU and once in the reference, from f32 values whose
      // last bits can differ: a bf16 ulp apart at a rounding boundary.
      const double tol = dtype == DType::f32 ? kSumTolerance : lazy_test::tolerance_for(dtype);
      expect_matches_reference(
          [&] {
            return std::vector{lazy::softmax(x), lazy::sum(x, -1)};
          },
          what, tol);
      expect_matches_reference([&] { return std::vector{lazy::argmax(x, -1)}; }, what, 0);
    }
  }
  const Tensor flags = random_input(DType::bool_, {64, 24});
  const Tensor wide = random_input(DType::bool_, {4096, 1024});
  expect_matches_reference(
      [&] {
        return std::vector{lazy::any(flags, -1), lazy::all(flags, -1), lazy::any(wide, 0),
                           lazy::sum(wide, 0)};
      },
      "bool rows and columns", kSumTolerance);
}

// A row kernel divides by a value of the row through its reciprocal (lz_div_by): the bits must be
// those of the division, here against the host's IEEE float division, on quotients far apart in
// range: subnormal ones that are exact rounding ties (9 * 2^-149 / 6), zeros, infinities, NaN.
TEST_F(GpuReductions, DivisionByARowValueRoundsAsDivision) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> divisors = {6.0f, 3.0f, 0.1f,   1e-30f, 1e30f, 0.0f, -0.0f,
                                       kInf, kNaN, 1e-40f, 2.0f,   -7.0f, 1.5f, 3e38f};
  const std::int64_t rows = std::int64_t(divisors.size()), extent = 4096;
  std::vector<float> x(std::size_t(rows * extent)), d(x.size());
  std::uint64_t state = lazy_test::fresh_seed();
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return std::uint32_t(state >> 32);
  };
  const float specials[] = {0.0f, -0.0f, kInf, -kInf, kNaN, 1e-45f, 3.4e38f, 1.0f};
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t column = i % std::size_t(extent);
    if (column % 4 == 0) {
      x[i] = std::bit_cast<float>(next());  // any bits: every exponent, NaNs
    } else if (column % 4 == 1) {
      x[i] = float(2 * (next() % 2048) + 1) * 3.0f * 0x1p-149f;  // ties when divided by 6
    } else if (column % 4 == 2) {
      x[i] = specials[next() % 8];
    } else {
      x[i] = float(next()) * 0x1p-32f;
    }
    d[i] = divisors[i / std::size_t(extent)];
  }
  const Tensor xs = lazy::from_data(x, {rows, extent});
  const Tensor ds = lazy::from_data(d, {rows, extent});
  lazy::eval({xs, ds});
  lazy::reset_stats();
  // max over a row of copies of its divisor is the divisor (NaN rows: NaN).
  const std::vector<float> got = (xs / lazy::max(ds, -1, true)).to_vector<float>();
  EXPECT_EQ(lazy::stats().kernel_launches, 1);
  std::int64_t differing = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float want = x[i] / divisors[i / std::size_t(extent)];
    const bool same = std::isnan(want) ? std::isnan(got[i])
                                       : std::bit_cast<std::uint32_t>(want) ==
                                             std::bit_cast<std::uint32_t>(got[i]);
    if (!same && differing++ < 5)
      ADD_FAILURE() << x[i] << " / " << divisors[i / std::size_t(extent)] << ": got " << got[i]
                    << ", want " << want;
  }
  EXPECT_EQ(differing, 0);
}

}  // namespace
