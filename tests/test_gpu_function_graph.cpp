// A lazy::Function whose plan has several launches replays as one CUDA graph: each call's
// results are new memory that later calls leave alone, inputs and outputs that move between
// calls reach the graph's launches, intermediates the graph keeps are rewritten every call, and
// bad indices found inside the graph are reported at the call.
#include <functional>
#include <vector>

#include "gpu_test_support.h"

namespace {

using lazy::Shape;
using lazy::Tensor;
using lazy_test::GpuTest;
using lazy_test::random_input;

// Rows through softmax, a row sum and a column mean: several kernels, with intermediates.
std::vector<Tensor> multi_kernel_step(std::span<const Tensor> in) {
  Tensor h = lazy::exp(in[0] * 0.5f) + in[1];
  Tensor p = lazy::softmax(h, -1);
  return {p * lazy::sum(h, -1, true), lazy::mean(p, 0)};
}

void expect_close(const Tensor& got, const Tensor& want, const char* what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const std::vector<double> g = got.to_vector<double>(), w = want.to_vector<double>();
  for (std::size_t k = 0; k < g.size(); ++k)
    ASSERT_NEAR(g[k], w[k], 1e-5 * (1 + std::abs(w[k]))) << what << ", element " << k;
}

class FunctionGraphTest : public GpuTest {};

TEST_F(FunctionGraphTest, MultiKernelReplaysLaunchOneGraphAndLeaveEarlierResultsAlone) {
  lazy::Function f(multi_kernel_step);
  const Shape shape{24, 40};
  std::vector<std::vector<Tensor>> inputs, results;
  for (int call = 0; call < 5; ++call) {
    inputs.push_back(
        {random_input(lazy::DType::f32, shape), random_input(lazy::DType::f32, shape)});
    const lazy::Stats before = lazy::stats();
    results.push_back(f(std::span<const Tensor>(inputs.back())));
    const lazy::Stats after = lazy::stats();
    EXPECT_EQ(after.graph_launches - before.graph_launches, call == 0 ? 0 : 1) << "call " << call;
    if (call > 0) EXPECT_GE(after.kernel_launches - before.kernel_launches, 2) << "call " << call;
  }
  // Read only now: a later call that wrote into an earlier call's results would show.
  for (std::size_t call = 0; call < results.size(); ++call) {
    const std::vector<Tensor> want = multi_kernel_step(inputs[call]);
    for (std::size_t i = 0; i < want.size(); ++i) expect_close(results[call][i], want[i], "output");
  }
}

TEST_F(FunctionGraphTest, AnOutputFedBackAsTheNextInputMovesEveryCall) {
  lazy::Function f([](std::span<const Tensor> in) {
    Tensor centred = in[0] - lazy::mean(in[0], -1, true);
    return std::vector<Tensor>{lazy::tanh(centred + lazy::sum(centred * centred, 0, true) * 0.01f)};
  });
  Tensor compiled = random_input(lazy::DType::f32, {16, 32}), plain = compiled;
  for (int step = 0; step < 12; ++step) {
    compiled = f({compiled})[0];
    Tensor centred = plain - lazy::mean(plain, -1, true);
    plain = lazy::tanh(centred + lazy::sum(centred * centred, 0, true) * 0.01f);
    lazy::eval({plain});
  }
  expect_close(compiled, plain, "after 12 steps");
}

TEST_F(FunctionGraphTest, ViewsOfResultsAndUnevaluatedHostInputsAreReplayed) {
  lazy::Function f([](std::span<const Tensor> in) {
    Tensor p = lazy::softmax(in[0] * in[1].unsqueeze(0), -1);
    Tensor total = lazy::sum(p * p, 0);
    return std::vector<Tensor>{p.transpose(0, 1), total.slice(0, 1, 9, 2)};
  });
  for (int call = 0; call < 4; ++call) {
    std::vector<float> row(48), matrix(8 * 48);
    for (std::size_t i = 0; i < row.size(); ++i) row[i] = 0.01f * float(i) * float(call + 1);
    for (std::size_t i = 0; i < matrix.size(); ++i) matrix[i] = float((i * 7 + call) % 13) / 13.0f;
    // Host data never read by a kernel yet: the call uploads it.
    const Tensor x = lazy::from_data(matrix, {8, 48}), w = lazy::from_data(row, {48});
    const std::vector<Tensor> got = f({x, w});
    Tensor p = lazy::softmax(x * w.unsqueeze(0), -1);
    expect_close(got[0], p.transpose(0, 1), "transposed softmax");
    expect_close(got[1], lazy::sum(p * p, 0).slice(0, 1, 9, 2), "strided slice of a sum");
  }
}

TEST_F(FunctionGraphTest, ASingleKernelPlanIsAGraphTooAndAMatmulPlanLaunchesPlainly) {
  lazy::Function doubled(
      [](std::span<const Tensor> in) { return std::vector<Tensor>{in[0] * 2.0f}; });
  lazy::Function product([](std::span<const Tensor> in) {
    return std::vector<Tensor>{lazy::softmax(lazy::matmul(in[0], in[1]), -1)};
  });
  const Tensor x = random_input(lazy::DType::f32, {1000});
  const Tensor a = random_input(lazy::DType::f32, {16, 32}),
               b = random_input(lazy::DType::f32, {32, 8});
  doubled({x});
  product({a, b});
  lazy::Stats before = lazy::stats();
  const Tensor y = doubled({x})[0];
  EXPECT_EQ(lazy::stats().graph_launches - before.graph_launches, 1);
  expect_close(y, x * 2.0f, "doubled");
  before = lazy::stats();
  const Tensor p = product({a, b})[0];
  EXPECT_EQ(lazy::stats().graph_launches, before.graph_launches);
  EXPECT_EQ(lazy::stats().function_replays - before.function_replays, 1);
  EXPECT_EQ(lazy::stats().matmul_calls - before.matmul_calls, 1);
  expect_close(p, lazy::softmax(lazy::matmul(a, b), -1), "softmax of a product");
}

// A product of at most 16 rows (bf16) is a kernel of the graph, counted as the product's call
// and not as another kernel, as in a plain replay.
TEST_F(FunctionGraphTest, AProductKernelInTheGraphCountsAsTheProductsCall) {
  lazy::Function activated([](std::span<const Tensor> in) {
    return std::vector<Tensor>{lazy::gelu_tanh(lazy::linear(in[0], in[1], in[2]))};
  });
  lazy::Function normed([](std::span<const Tensor> in) {
    return std::vector<Tensor>{lazy::rms_norm(lazy::linear(in[0], in[1]) + in[2], in[3])};
  });
  const Tensor x = random_input(lazy::DType::bf16, {8, 64});
  const Tensor w = random_input(lazy::DType::bf16, {40, 64});
  const Tensor b = random_input(lazy::DType::bf16, {40});
  const Tensor r = random_input(lazy::DType::bf16, {8, 40});
  const Tensor g = random_input(lazy::DType::bf16, {40});
  activated({x, w, b});
  normed({x, w, r, g});
  const struct {
    lazy::Function* f;
    std::vector<Tensor> in;
    std::function<Tensor()> want;  // recorded after the call, so that it counts apart
    std::int64_t kernels;
  } cases[] = {
      {&activated, {x, w, b}, [&] { return lazy::gelu_tanh(lazy::linear(x, w, b)); }, 0},
      {&normed, {x, w, r, g}, [&] { return lazy::rms_norm(lazy::linear(x, w) + r, g); }, 1},
  };
  for (const auto& c : cases) {
    const lazy::Stats before = lazy::stats();
    const Tensor got = (*c.f)(std::span<const Tensor>(c.in))[0];
    const lazy::Stats after = lazy::stats();
    EXPECT_EQ(after.graph_launches - before.graph_launches, 1);
    EXPECT_EQ(after.matmul_calls - before.matmul_calls, 1);
    EXPECT_EQ(after.matmul_kernels - before.matmul_kernels, 1);
    EXPECT_EQ(after.kernel_launches - before.kernel_launches, c.kernels);
    expect_close(got.to(lazy::DType::f32), c.want().to(lazy::DType::f32), "product in a graph");
  }
}

TEST_F(FunctionGraphTest, ABadIndexInsideTheGraphIsAnIndexErrorAtTheCall) {
  lazy::Function f([](std::span<const Tensor> in) {
    Tensor rows = lazy::index_select(in[0], 0, in[1]);
    return std::vector<Tensor>{lazy::softmax(rows, -1), lazy::sum(rows, 0)};
  });
  const Tensor table = random_input(lazy::DType::f32, {10, 64});
  const std::vector<std::int64_t> good = {1, 3, 9, 0}, bad = {1, 3, 10, 0};
  f({table, lazy::from_data(good, {4})});
  const std::vector<Tensor> again = f({table, lazy::from_data(good, {4})});
  expect_close(again[1], lazy::sum(lazy::index_select(table, 0, lazy::from_data(good, {4})), 0),
               "gathered sum");
  EXPECT_THROW(
      {
        const std::vector<Tensor> out = f({table, lazy::from_data(bad, {4})});
        out[1].to_vector<float>();
      },
      lazy::IndexError);
  const std::vector<Tensor> after = f({table, lazy::from_data(good, {4})});
  expect_close(after[0],
               lazy::softmax(lazy::index_select(table, 0, lazy::from_data(good, {4})), -1),
               "gathered softmax after the error");
}

}  // namespace
