// Matrix products on the GPU against the reference evaluator: every form, dtype and layout the
// API takes, each epilogue, and what each costs (product calls, other kernels).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "api/composites.h"
#include "gpu_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::expect_matches_reference;
using lazy_test::random_input;

class GpuMatmul : public lazy_test::GpuTest {
 protected:
  void TearDown() override {
    lazy::set_matmul_precision("highest");
    lazy_test::GpuTest::TearDown();
  }
};

constexpr DType kFloatingDTypes[] = {DType::f32, DType::f16, DType::bf16};

// Inputs are normals times 2; over K terms a product's error grows like sqrt(K) ulps of the
// accumulator, and the result is rounded once to its dtype. The reference rounds each op of a
// fused epilogue, the GPU once: a few ulps of the dtype apart.
double product_tolerance(DType dtype, std::int64_t k, bool tf32 = false) {
  const double accumulate = (tf32 ? 1e-3 : 2e-7) * std::sqrt(double(std::max<std::int64_t>(k, 1)));
  return lazy_test::tolerance_for(dtype) + accumulate;
}

// What one sync of `outputs` cost.
struct Cost {
  std::int64_t calls;            // products, each with its folded epilogue
  std::int64_t kernels;          // other kernels
  std::int64_t product_kernels;  // products the library's own kernel made
};
Cost cost_of(const std::vector<Tensor>& outputs) {
  lazy::reset_stats();
  lazy::eval(outputs);
  const lazy::Stats s = lazy::stats();
  return {s.matmul_calls, s.kernel_launches, s.matmul_kernels};
}

struct Form {
  std::string name;
  Shape a, b;
};

TEST_F(GpuMatmul, EveryFormMatchesTheReference) {
  const Form forms[] = {
      {"2-D", {37, 19}, {19, 29}},
      {"dot", {33}, {33}},
      {"vector @ matrix", {24}, {24, 17}},
      {"matrix @ vector", {17, 24}, {24}},
      {"batched, broadcast batch", {2, 1, 9, 16}, {3, 16, 11}},
      {"batch @ matrix", {4, 13, 8}, {8, 21}},
      {"vector @ batch", {8}, {3, 8, 5}},
      {"K = 1", {16, 1}, {1, 24}},
      {"M = 1", {1, 64}, {64, 40}},
      {"N = 1", {40, 64}, {64, 1}},
      {"unaligned", {129, 67}, {67, 131}},
  };
  for (DType dtype : kFloatingDTypes) {
    for (const Form& form : forms) {
      Tensor a = random_input(dtype, form.a);
      Tensor b = random_input(dtype, form.b);
      const std::int64_t k = form.a[form.a.rank() - 1];
      expect_matches_reference([&] { return std::vector{lazy::matmul(a, b)}; },
                               form.name + " " + std::string(lazy::dtype_name(dtype)),
                               product_tolerance(dtype, k));
    }
  }
}

TEST_F(GpuMatmul, LongInnerDimension) {
  for (DType dtype : kFloatingDTypes) {
    Tensor a = random_input(dtype, {8, 16384});
    Tensor b = random_input(dtype, {16384, 24});
    expect_matches_reference([&] { return std::vector{lazy::matmul(a, b)}; },
                             "K = 16384 " + std::string(lazy::dtype_name(dtype)),
                             product_tolerance(dtype, 16384));
  }
}

TEST_F(GpuMatmul, EmptyDimensions) {
  Tensor a = random_input(DType::f32, {6, 0});
  Tensor b = random_input(DType::f32, {0, 5});
  Tensor zero_k = lazy::matmul(a, b);
  EXPECT_EQ(zero_k.shape(), (Shape{6, 5}));
  for (double v : zero_k.to_vector<double>()) EXPECT_EQ(v, 0.0);
  Tensor bias = random_input(DType::f32, {5});
  Tensor w = random_input(DType::f32, {5, 0});
  expect_matches_reference([&] { return std::vector{lazy::gelu_tanh(lazy::linear(a, w, bias))}; },
                           "K = 0 with a bias epilogue",
                           2e-5);  // cuBLASLt's gelu: about 4e-6 from the exact form
  Tensor m0 = lazy::matmul(random_input(DType::f32, {0, 4}), random_input(DType::f32, {4, 3}));
  EXPECT_EQ(m0.shape(), (Shape{0, 3}));
  EXPECT_TRUE(m0.to_vector<double>().empty());
}

TEST_F(GpuMatmul, BmmLinearAddmmEinsum) {
  for (DType dtype : kFloatingDTypes) {
    const std::string d(lazy::dtype_name(dtype));
    const double tol = product_tolerance(dtype, 48);
    Tensor x = random_input(dtype, {3, 10, 48});
    Tensor y = random_input(dtype, {3, 48, 12});
    Tensor w = random_input(dtype, {20, 48});
    Tensor bias = random_input(dtype, {20});
    Tensor c = random_input(dtype, {10, 12});
    Tensor row = random_input(dtype, {12});
    expect_matches_reference([&] { return std::vector{lazy::bmm(x, y)}; }, "bmm " + d, tol);
    expect_matches_reference([&] { return std::vector{lazy::linear(x, w, bias)}; }, "linear " + d,
                             tol);
    expect_matches_reference([&] { return std::vector{lazy::linear(x, w)}; },
                             "linear without bias " + d, tol);
    Tensor a2 = x.slice(0, 0, 1).reshape({10, 48});
    Tensor b2 = y.slice(0, 1, 2).reshape({48, 12});
    expect_matches_reference(
        [&] {
          return std::vector{lazy::addmm(c, a2, b2), lazy::addmm(row, a2, b2, 0.5, -2.0),
                             lazy::addmm(c, a2, b2, 0, 1)};
        },
        "addmm " + d, tol);
    Tensor q = random_input(dtype, {2, 4, 9, 16});
    Tensor kk = random_input(dtype, {2, 4, 7, 16});
    expect_matches_reference([&] { return std::vector{lazy::einsum("bhqd,bhkd->bhqk", q, kk)}; },
                             "einsum " + d, product_tolerance(dtype, 16));
  }
}

TEST_F(GpuMatmul, Tf32IsOptIn) {
  Tensor a = random_input(DType::f32, {64, 512});
  Tensor b = random_input(DType::f32, {512, 48});
  expect_matches_reference([&] { return std::vector{lazy::matmul(a, b)}; }, "full FP32",
                           product_tolerance(DType::f32, 512));
  lazy::set_matmul_precision("tf32");
  EXPECT_EQ(lazy::matmul_precision(), "tf32");
  expect_matches_reference([&] { return std::vector{lazy::matmul(a, b)}; }, "TF32",
                           product_tolerance(DType::f32, 512, true));
}

// Transposed, broadcast and sliced operands fold into the call: no copy kernel.
TEST_F(GpuMatmul, ViewsFoldIntoTheCall) {
  Tensor x = random_input(DType::bf16, {8, 64, 96});
  Tensor w = random_input(DType::bf16, {80, 96});
  Tensor wide = random_input(DType::bf16, {64, 130});
  const double tol = product_tolerance(DType::bf16, 96);
  const auto check = [&](const std::string& what, const std::function<Tensor()>& program) {
    const Cost cost = cost_of({program()});
    EXPECT_EQ(cost.calls, 1) << what;
    EXPECT_EQ(cost.kernels, 0) << what;
    expect_matches_reference([&] { return std::vector{program()}; }, what, tol);
  };
  check("x @ w.transpose(0, 1)", [&] { return lazy::matmul(x, w.transpose(0, 1)); });
  check("a stride-0 batch", [&] { return lazy::matmul(x, w.transpose(0, 1).expand({8, 96, 80})); });
  check("a slice with unit inner stride",
        [&] { return lazy::matmul(wide.slice(1, 2, 98), w.transpose(0, 1)); });
  check("a transposed left operand", [&] { return lazy::matmul(x.transpose(1, 2), x); });
}

// A batch whose axes do not collapse into one stride is copied first, by a generated kernel.
TEST_F(GpuMatmul, UnexpressibleLayoutIsCopiedOnce) {
  Tensor qkv = random_input(DType::f16, {2, 6, 3, 4, 16});  // [batch, seq, 3, heads, dim]
  const auto program = [&] {
    Tensor q = qkv.slice(2, 0, 1).reshape({2, 6, 4, 16}).permute({0, 2, 1, 3});
    Tensor k = qkv.slice(2, 1, 2).reshape({2, 6, 4, 16}).permute({0, 2, 3, 1});
    return lazy::matmul(q, k);
  };
  const Cost cost = cost_of({program()});
  EXPECT_EQ(cost.calls, 1);
  EXPECT_LE(cost.kernels, 2);
  expect_matches_reference([&] { return std::vector{program()}; }, "permuted heads",
                           product_tolerance(DType::f16, 16));
}

// What each epilogue costs: cuBLASLt's own epilogues need no kernel; other work after the product
// is one kernel that reads it. 8 rows (f16 and bf16) take the library's product kernel instead,
// at the same cost.
TEST_F(GpuMatmul, EpiloguesFuse) {
  for (const auto& [dtype, rows] :
       {std::pair{DType::bf16, 48}, std::pair{DType::f16, 48}, std::pair{DType::f32, 48},
        std::pair{DType::bf16, 8}, std::pair{DType::f16, 8}, std::pair{DType::f32, 8}}) {
    const std::string d =
        std::string(lazy::dtype_name(dtype)) + " " + std::to_string(rows) + " rows";
    Tensor x = random_input(dtype, {rows, 64});
    Tensor w = random_input(dtype, {40, 64});
    Tensor b = random_input(dtype, {40});
    Tensor r = random_input(dtype, {rows, 40});
    Tensor g = random_input(dtype, {40});
    const double tol = product_tolerance(dtype, 64);
    struct Case {
      std::string what;
      std::function<Tensor()> program;
      std::int64_t kernels;
    };
    const Case cases[] = {
        {"bias", [&] { return lazy::linear(x, w, b); }, 0},
        // cuBLASLt's relu makes NaN 0; torch.relu keeps it, so relu is a kernel of its own.
        {"bias + relu", [&] { return lazy::relu(lazy::linear(x, w, b)); }, 1},
        // f32 keeps gelu_tanh out of the call: cuBLASLt's is 30 f32 ulps from the exact form.
        {"bias + gelu_tanh", [&] { return lazy::gelu_tanh(lazy::linear(x, w, b)); },
         dtype == DType::f32 ? 1 : 0},
        {"gelu_tanh without bias", [&] { return lazy::gelu_tanh(lazy::linear(x, w)); },
         dtype == DType::f32 ? 1 : 0},
        {"residual", [&] { return lazy::linear(x, w) + r; }, 0},
        {"bias + residual + gelu_tanh", [&] { return lazy::gelu_tanh(r + lazy::linear(x, w, b)); },
         dtype == DType::f32 ? 1 : 0},
        {"rms_norm(x @ w^T + r)", [&] { return lazy::rms_norm(lazy::linear(x, w) + r, g); }, 1},
        {"softmax of a scaled product",
         [&] { return lazy::softmax(lazy::matmul(x, w.transpose(0, 1)) * 0.125, -1); }, 1},
        // Scaled down, not up: tanh(2y) doubled the product's rounding, past the tolerance
        // (f32, one seed in several: 3.1e-5 against 1.2e-5).
        {"pointwise chain", [&] { return lazy::tanh(lazy::linear(x, w, b) * 0.5) - 1.0; }, 1},
    };
    for (const Case& c : cases) {
      const Cost cost = cost_of({c.program()});
      EXPECT_EQ(cost.calls, 1) << c.what << " " << d;
      EXPECT_EQ(cost.kernels, c.kernels) << c.what << " " << d;
      EXPECT_EQ(cost.product_kernels, rows <= 16 && dtype != DType::f32 ? 1 : 0)
          << c.what << " " << d;
      expect_matches_reference([&] { return std::vector{c.program()}; }, c.what + " " + d, tol);
    }
  }
}

// A held intermediate is not folded away: both values come back right.
TEST_F(GpuMatmul, HeldIntermediateStaysWritten) {
  Tensor x = random_input(DType::f32, {16, 32});
  Tensor w = random_input(DType::f32, {24, 32});
  Tensor b = random_input(DType::f32, {24});
  expect_matches_reference(
      [&] {
        Tensor pre = lazy::linear(x, w, b);
        return std::vector{pre, lazy::gelu_tanh(pre)};
      },
      "pre-activation held", product_tolerance(DType::f32, 32));
}

// Two products added (a backward's input gradient through two layers): the second call reads
// the first product as its C, and no kernel runs (block_train's backward, an internal error once).
TEST_F(GpuMatmul, TheSumOfTwoProductsIsTwoCallsAndNoKernel) {
  for (DType dtype : {DType::f32, DType::bf16}) {
    Tensor x1 = random_input(dtype, {40, 24}), w1 = random_input(dtype, {36, 24});
    Tensor x2 = random_input(dtype, {40, 20}), w2 = random_input(dtype, {36, 20});
    const auto program = [&] { return lazy::linear(x1, w1) + lazy::linear(x2, w2); };
    const Cost cost = cost_of({program()});
    EXPECT_EQ(cost.calls, 2) << lazy::dtype_name(dtype);
    EXPECT_EQ(cost.kernels, 0) << lazy::dtype_name(dtype);
    expect_matches_reference([&] { return std::vector{program()}; },
                             std::string(lazy::dtype_name(dtype)),
                             2 * product_tolerance(dtype, 24));
  }
}

// gelu_tanh's gradient of a product (a backward's input gradient) runs as cuBLASLt's DGELU
// epilogue, reading x beside the product: plain, with the batch folded into rows, and batched.
TEST_F(GpuMatmul, GeluTanhsGradientOfAProductIsOneCallAndNoKernel) {
  const std::vector<std::array<Shape, 3>> forms = {
      {Shape{40, 24}, Shape{24, 48}, Shape{40, 48}},
      {Shape{3, 20, 24}, Shape{24, 32}, Shape{3, 20, 32}},
      {Shape{3, 20, 24}, Shape{3, 24, 32}, Shape{3, 20, 32}}};
  for (DType dtype : {DType::f16, DType::bf16}) {
    for (const auto& [g_shape, w_shape, x_shape] : forms) {
      Tensor g = random_input(dtype, g_shape), w = random_input(dtype, w_shape);
      Tensor x = random_input(dtype, x_shape);
      const auto program = [&] {
        return lazy::api::gelu_tanh_grad(lazy::matmul(g, w), x, std::source_location::current());
      };
      const std::string what = std::string(lazy::dtype_name(dtype)) + " " + g_shape.to_string();
      const Cost cost = cost_of({program()});
      EXPECT_EQ(cost.calls, 1) << what;
      EXPECT_EQ(cost.kernels, 0) << what;
      // The call rounds once where the reference rounds the product and then its gradient.
      expect_matches_reference([&] { return std::vector{program()}; }, what,
                               3 * product_tolerance(dtype, 24));
    }
  }
}

// A replayed step makes the same calls from the plan cache.
TEST_F(GpuMatmul, ReplayMakesTheSameCalls) {
  Tensor x = random_input(DType::bf16, {32, 64});
  Tensor w = random_input(DType::bf16, {48, 64});
  Tensor b = random_input(DType::bf16, {48});
  const auto step = [&] { return lazy::gelu_tanh(lazy::linear(x, w, b)); };
  lazy::eval({step()});
  lazy::reset_stats();
  Tensor again = step();
  lazy::eval({again});
  const lazy::Stats s = lazy::stats();
  EXPECT_EQ(s.plan_hits, 1);
  EXPECT_EQ(s.matmul_calls, 1);
  EXPECT_EQ(s.kernel_launches, 0);
}

// Products chained with pointwise work between them, as an MLP is.
TEST_F(GpuMatmul, TwoLayerMlp) {
  Tensor x = random_input(DType::bf16, {64, 96});
  Tensor w1 = random_input(DType::bf16, {128, 96});
  Tensor b1 = random_input(DType::bf16, {128});
  Tensor w2 = random_input(DType::bf16, {32, 128});
  expect_matches_reference(
      [&] {
        Tensor h = lazy::gelu_tanh(lazy::linear(x, w1 * 0.1, b1));
        return std::vector{lazy::linear(h, w2) + x.slice(1, 0, 32)};
      },
      "two layers", 0.05);
}

// Attention as products and a masked softmax: the mask broadcast over heads walks each row from
// (row % S) * S, and the softmax is one row kernel between the two calls.
TEST_F(GpuMatmul, CausalAttention) {
  constexpr std::int64_t kSeq = 48;
  Tensor q = random_input(DType::bf16, {2, 3, kSeq, 32});
  Tensor k = random_input(DType::bf16, {2, 3, kSeq, 32});
  Tensor v = random_input(DType::bf16, {2, 3, kSeq, 32});
  Tensor mask = lazy::arange(kSeq).reshape({kSeq, 1}) >= lazy::arange(kSeq).reshape({1, kSeq});
  lazy::eval({mask});
  const auto program = [&] {
    Tensor s = lazy::matmul(q, k.transpose(2, 3)) * 0.125;
    Tensor p = lazy::softmax(lazy::where(mask, s, -INFINITY).to(DType::f32), -1).to(DType::bf16);
    return lazy::matmul(p, v);
  };
  const Cost cost = cost_of({program()});
  EXPECT_EQ(cost.calls, 2);
  EXPECT_EQ(cost.kernels, 1);
  expect_matches_reference([&] { return std::vector{program()}; }, "causal attention", 0.05);
}

// scaled_dot_product_attention costs the same, its softmax of rows that may attend nowhere and
// its grouped heads (read as rows of one product a key head, not copied) included.
TEST_F(GpuMatmul, ScaledDotProductAttentionIsTwoCallsAndOneKernel) {
  Tensor q = random_input(DType::bf16, {2, 4, 48, 32});
  Tensor k = random_input(DType::bf16, {2, 2, 48, 32});
  Tensor v = random_input(DType::bf16, {2, 2, 48, 32});
  const auto program = [&] {
    return lazy::scaled_dot_product_attention(q, k, v, {}, 0.0, true, {}, true);
  };
  const Cost cost = cost_of({program()});
  EXPECT_EQ(cost.calls, 2);
  EXPECT_EQ(cost.kernels, 1);
  expect_matches_reference([&] { return std::vector{program()}; }, "grouped causal attention",
                           0.05);
}

// NaN in a bias reaches the result through relu, as torch.relu keeps it (lazyfuse-fuzz
// --only-products seed 7103 program 762: relu(addmm(b, a, w)) gave 0 where b was NaN).
TEST_F(GpuMatmul, ReluKeepsNaNFromTheBias) {
  Tensor a = random_input(DType::f32, {4, 3});
  Tensor w = random_input(DType::f32, {3, 5});
  Tensor b = lazy::from_data(std::vector<float>{1, NAN, -2, INFINITY, 0.5f}, {5});
  expect_matches_reference([&] { return std::vector{lazy::relu(lazy::addmm(b, a, w))}; },
                           "relu of a product with a NaN bias", 1e-5);
}

// One tensor as b and as the residual (lazyfuse-fuzz --only-products seed 8201 program 2086:
// t0 + t1 @ t0 passed the call a pointer past its arguments).
TEST_F(GpuMatmul, InputReadAsOperandAndResidual) {
  for (const Shape& shape : {Shape{1, 1}, Shape{33, 33}}) {
    Tensor t0 = random_input(DType::f32, shape);
    Tensor t1 = random_input(DType::f32, shape);
    expect_matches_reference([&] { return std::vector{lazy::add(t0, lazy::matmul(t1, t0))}; },
                             "t0 + t1 @ t0", product_tolerance(DType::f32, shape[1]));
    expect_matches_reference([&] { return std::vector{lazy::matmul(t0, t0) + t0}; }, "t0 @ t0 + t0",
                             product_tolerance(DType::f32, shape[1]));
  }
}

// Products of at most 16 rows with a weight stored as nn.Linear stores it run as one generated
// kernel (codegen/skinny_matmul.h) with their epilogue, counted as the product's call and not as
// another kernel: every epilogue, dtype, row count from 1 to 16 and sizes from one tile to a
// long K.
TEST_F(GpuMatmul, SkinnyProductsAreOneKernel) {
  struct Size {
    std::int64_t rows, n, k;
  };
  // 1096: past one round of the warps' spans, ending inside a span.
  const Size sizes[] = {{1, 8, 8},      {5, 40, 72},     {16, 1000, 256},
                        {3, 64, 16384}, {16, 4096, 512}, {7, 24, 1096}};
  for (DType dtype : {DType::bf16, DType::f16}) {
    for (const Size& size : sizes) {
      const std::string what = std::string(lazy::dtype_name(dtype)) + " " +
                               std::to_string(size.rows) + "x" + std::to_string(size.n) + "x" +
                               std::to_string(size.k);
      Tensor x = random_input(dtype, {size.rows, size.k});
      Tensor w = random_input(dtype, {size.n, size.k});
      Tensor b = random_input(dtype, {size.n});
      Tensor r = random_input(dtype, {size.rows, size.n});
      const double tol = product_tolerance(dtype, size.k);
      const std::function<Tensor()> programs[] = {
          [&] { return lazy::linear(x, w); },
          [&] { return lazy::gelu_tanh(lazy::linear(x, w, b)); },
          [&] { return lazy::linear(x, w) + r; },
          [&] { return lazy::gelu_tanh(r + lazy::linear(x, w, b)); },
      };
      for (const auto& program : programs) {
        const Cost cost = cost_of({program()});
        EXPECT_EQ(cost.calls, 1) << what;
        EXPECT_EQ(cost.product_kernels, 1) << what;
        EXPECT_EQ(cost.kernels, 0) << what;
        expect_matches_reference([&] { return std::vector{program()}; }, what, tol);
      }
    }
  }
}

// Views the skinny kernel reads in place (rows of a wider tensor, a batch laid out as rows), one
// it leaves to cuBLASLt (an offset off 16-byte groups), the same bits on every run, and NaN kept
// to the rows and columns that read it.
TEST_F(GpuMatmul, SkinnyProductsReadViewsInPlace) {
  Tensor wide = random_input(DType::bf16, {16, 136});
  Tensor batched = random_input(DType::bf16, {2, 8, 128});
  Tensor w = random_input(DType::bf16, {200, 128});
  const double tol = product_tolerance(DType::bf16, 128);
  const Cost sliced = cost_of({lazy::linear(wide.slice(1, 8, 136), w)});
  EXPECT_EQ(sliced.product_kernels, 1);
  expect_matches_reference([&] { return std::vector{lazy::linear(wide.slice(1, 8, 136), w)}; },
                           "rows of a wider tensor", tol);
  const Cost folded = cost_of({lazy::linear(batched, w)});
  EXPECT_EQ(folded.product_kernels, 1);
  expect_matches_reference([&] { return std::vector{lazy::linear(batched, w)}; }, "a batch as rows",
                           tol);
  const Cost offset = cost_of({lazy::linear(wide.slice(1, 3, 131), w)});
  EXPECT_EQ(offset.calls, 1);
  EXPECT_EQ(offset.product_kernels, 0);
  expect_matches_reference([&] { return std::vector{lazy::linear(wide.slice(1, 3, 131), w)}; },
                           "offset off 16-byte groups", tol);

  const std::vector<float> first = lazy::linear(batched, w).to(DType::f32).to_vector<float>();
  const std::vector<float> second = lazy::linear(batched, w).to(DType::f32).to_vector<float>();
  EXPECT_EQ(first, second);

  // Rows past the 4 real ones read zeros, and 0 * inf is NaN there: nothing of it may reach the
  // results.
  std::vector<float> xs(4 * 128, 0.5f), ws(40 * 128, 0.25f);
  xs[2 * 128 + 7] = std::nanf("");
  ws[5 * 128 + 9] = INFINITY;
  const std::vector<float> y = lazy::linear(lazy::from_data(xs, {4, 128}, DType::bf16),
                                            lazy::from_data(ws, {40, 128}, DType::bf16))
                                   .to(DType::f32)
                                   .to_vector<float>();
  for (std::int64_t i = 0; i < 4; ++i) {
    for (std::int64_t j = 0; j < 40; ++j) {
      const float v = y[std::size_t(i * 40 + j)];
      if (i == 2) {
        EXPECT_TRUE(std::isnan(v)) << i << ", " << j;
      } else if (j == 5) {
        EXPECT_EQ(v, INFINITY) << i << ", " << j;
      } else {
        EXPECT_EQ(v, 16.0f) << i << ", " << j;  // 128 * 0.5 * 0.25, exact
      }
    }
  }
}

}  // namespace
