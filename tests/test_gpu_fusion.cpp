// Fused kernels on the GPU: long chains, views and broadcasts folded into indexing, several
// outputs from one kernel, both kernel variants, odd sizes and the 64-bit index path.
#include <cstring>

#include "gpu_test_support.h"
#include "ir/dtype_codec.h"
#include "lazy/stats.h"
#include "nvrtc_templates/philox.cuh"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::expect_matches_reference;
using lazy_test::fresh_seed;
using lazy_test::GpuTest;

Tensor computed_randn(const Shape& shape, DType dtype = DType::f32) {
  Tensor x = lazy::randn(shape, fresh_seed(), dtype);
  lazy::eval({x});
  return x;
}

class GpuFusion : public GpuTest {};

TEST_F(GpuFusion, QuickstartChainIsOneLaunchAndMatchesTheReference) {
  for (DType dtype : {DType::f32, DType::bf16, DType::f16}) {
    Tensor x = computed_randn({256, 4096}, dtype);
    Tensor bias = computed_randn({4096}, dtype);
    Tensor residual = computed_randn({256, 4096}, dtype);
    auto chain = [&] { return std::vector{lazy::gelu_tanh((x + bias) * 1.2f) + residual}; };
    lazy::reset_stats();
    std::vector<Tensor> y = chain();
    lazy::eval(y);
    EXPECT_EQ(lazy::stats().kernel_launches, 1);
    expect_matches_reference(chain, "chain4");
  }
}

TEST_F(GpuFusion, LongChainIsOneLaunch) {
  Tensor x0 = computed_randn({1 << 20});
  auto chain = [&] {
    Tensor x = x0;
    for (int i = 0; i < 4; ++i) {
      x = lazy::sigmoid(x * 1.01f + 0.1f) - 0.25f;
      x = lazy::tanh(x) * 0.9f;
    }
    return std::vector{x};
  };
  lazy::reset_stats();
  lazy::eval(chain());
  EXPECT_EQ(lazy::stats().kernel_launches, 1);
  expect_matches_reference(chain, "chain16");
}

TEST_F(GpuFusion, ViewsAndBroadcastsFoldIntoOneKernel) {
  Tensor a = computed_randn({64, 96});
  Tensor b = computed_randn({96, 64});
  Tensor col = computed_randn({64, 1});
  Tensor big = computed_randn({4, 64, 96});
  auto simple = [&] {
    Tensor t = b.transpose(0, 1);
    Tensor s = big.slice(0, 3, 4).squeeze(0).slice(1, std::nullopt, std::nullopt, -1);
    return std::vector{lazy::exp(a * 0.1f) + t * col - s};
  };
  lazy::reset_stats();
  lazy::eval(simple());
  EXPECT_EQ(lazy::stats().kernel_launches, 1);
  expect_matches_reference(simple, "views");
}

TEST_F(GpuFusion, ViewOfAPendingIntermediateIsRecomputedInline) {
  Tensor a = computed_randn({128, 128});
  auto program = [&] {
    Tensor e = lazy::exp(a * 0.5f);
    return std::vector{e + e.transpose(0, 1), (e * 2.0f).reshape({64, 256}).slice(1, 0, 256, 3)};
  };
  expect_matches_reference(program, "view of intermediate");
}

TEST_F(GpuFusion, HeldIntermediateIsAnExtraOutputOfTheSameKernel) {
  Tensor x = computed_randn({512, 1024});
  Tensor r = computed_randn({512, 1024});
  auto program = [&] {
    Tensor h = x + r;
    Tensor y = lazy::sigmoid(h) * 2.0f;
    return std::vector{h, y};
  };
  lazy::reset_stats();
  lazy::eval(program());
  EXPECT_EQ(lazy::stats().kernel_launches, 1);
  expect_matches_reference(program, "multi-output");
}

TEST_F(GpuFusion, RoundsThatReadTheLastRoundsValueWriteItInsteadOfRecomputingAll) {
  // Softmax and a column mean per round: kernels write a round's value once its chain is long
  // (fuse/shared_recompute.h), and later ones read it back. f32 only: s - mean(s) cancels to
  // values a 16-bit dtype's rounding of s swamps.
  Tensor x0 = computed_randn({64, 300});
  auto rounds = [&] {
    Tensor x = x0;
    for (int round = 0; round < 12; ++round) {
      Tensor s = lazy::softmax(x * 1.5f, -1);
      x = s - lazy::mean(s, 0, true) + x * 0.5f;
    }
    return std::vector{x};
  };
  expect_matches_reference(rounds, "softmax and column mean rounds");
}

TEST_F(GpuFusion, HeldViewSharesItsBasesMemory) {
  Tensor x = computed_randn({64, 32});
  Tensor base = lazy::exp(x);
  Tensor view = base.transpose(0, 1).slice(0, 1, 9);
  lazy::eval({base, view});
  EXPECT_EQ(view.node()->data->storage, base.node()->data->storage);
  lazy::runtime::set_reference_execution(true);
  Tensor want = lazy::exp(x).transpose(0, 1).slice(0, 1, 9);
  std::vector<double> expected = want.to_vector<double>();
  lazy::runtime::set_reference_execution(false);
  lazy_test::expect_close(view.to_vector<double>(), expected, 1e-5, "held view");
}

TEST_F(GpuFusion, ScalarKernelVariantMatchesTheReference) {
  // Offset 1 breaks 16-byte alignment: the kernel takes one element per thread.
  Tensor x = computed_randn({1000, 33});
  auto program = [&] { return std::vector{lazy::tanh(x.slice(1, 1, 33) * 3.0f) + 1.0f}; };
  expect_matches_reference(program, "unaligned");
}

// Differences of neighbours: the load at offset 1 reads its group's elements one by one while
// the others take vectors (codegen/iteration_space.h); a tail past the last group, rows that do
// or do not hold whole groups, and element sizes of 1 to 8 bytes.
TEST_F(GpuFusion, UnalignedLoadsBesideVectorsMatchTheReference) {
  for (DType dtype : {DType::f32, DType::bf16, DType::i64, DType::bool_}) {
    for (std::int64_t n : {std::int64_t(1) << 20, std::int64_t(1000003)}) {
      Tensor x = lazy_test::random_input(dtype, {n + 3});
      Tensor grid = lazy_test::random_input(dtype, {512, 1024 + 1});
      Tensor dense = lazy_test::random_input(dtype, {512, 1024});
      const std::string what = std::string(lazy::dtype_name(dtype)) + " n=" + std::to_string(n);
      expect_matches_reference(
          [&] {
            if (dtype == DType::bool_)
              return std::vector{x.slice(0, 1, n + 1) ^ x.slice(0, 0, n),
                                 grid.slice(1, 1, 1025) & grid.slice(1, 0, 1024),
                                 grid.slice(1, 1, 1025) | dense};
            return std::vector{x.slice(0, 1, n + 1) - x.slice(0, 0, n),
                               x.slice(0, 3, n + 3) * x.slice(0, 0, n) + x.slice(0, 1, n + 1),
                               grid.slice(1, 1, 1025) - grid.slice(1, 0, 1024),
                               grid.slice(1, 1, 1025) * dense - dense};
          },
          what);
    }
  }
}

TEST_F(GpuFusion, SizesThatAreNotMultiplesOfTheVectorWidth) {
  for (std::int64_t n : {1, 3, 7, 1000003}) {
    Tensor x = computed_randn({n});
    Tensor h = computed_randn({n}, DType::bf16);
    expect_matches_reference(
        [&] {
          return std::vector{x * 2.0f + 1.0f, lazy::silu(h)};
        },
        "n=" + std::to_string(n));
  }
}

TEST_F(GpuFusion, ZeroSizedTensorsLaunchNothing) {
  Tensor x = computed_randn({0, 5});
  lazy::reset_stats();
  Tensor y = lazy::exp(x) + 1.0f;
  EXPECT_EQ(y.to_vector<float>().size(), 0u);
  EXPECT_EQ(lazy::stats().kernel_launches, 0);
}

TEST_F(GpuFusion, IndicesPast2To31UseThe64BitPath) {
  // 2^31 + 5 f16 elements (4 GiB written), generated in the kernel itself.
  const std::int64_t n = (std::int64_t(1) << 31) + 5;
  const std::uint64_t seed = 1234;
  Tensor y = lazy::rand({n}, seed, DType::f16) * 2.0f + 1.0f;
  lazy::eval({y});
  std::vector<std::int64_t> indices = {
      0, 1, 2, (std::int64_t(1) << 31) - 1, std::int64_t(1) << 31, n - 2, n - 1};
  for (std::int64_t k = 0; k < 1000; ++k) indices.push_back((k * 2147483647) % n);
  Tensor tail = y.slice(0, n - 8, n);
  std::vector<float> last = tail.to_vector<float>();
  for (std::int64_t i : indices) {
    float u = lz_uniform_from_word(lz_philox_word(seed, std::uint64_t(i)), 11);
    // The kernel computes in f32 (exact here) and rounds once to f16.
    float want = float(lazy::ir::round_to_dtype(double(u) * 2.0 + 1.0, DType::f16));
    float got = y.slice(0, i, i + 1).item<float>();
    EXPECT_EQ(got, want) << "element " << i;
  }
  EXPECT_EQ(last.size(), 8u);
}

}  // namespace
