// cuBLASLt calls built directly from operand layouts (ir::map_matmul, then runtime::MatmulCall),
// against a double-precision host product: f32, f16, bf16 and TF32; transposed, sliced, batched
// and stride-0 operands; bias, relu and gelu epilogues; a residual; k = 0; unaligned leading
// dimensions and offsets; an empty product; and LAZY_AUTOTUNE's timing and its entry on disk.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "ir/dtype_codec.h"
#include "ir/layout.h"
#include "ir/matmul_problem.h"
#include "jit/disk_cache.h"
#include "layout_test_support.h"
#include "runtime/device.h"
#include "runtime/matmul_call.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::ir::Layout;
using lazy::ir::MatmulActivation;
using lazy::runtime::Device;
using lazy::runtime::DeviceBuffer;
using lazy::runtime::MatmulAlgorithmSource;
using lazy::runtime::MatmulCall;
using lazy::runtime::MatmulPointers;
using lazy::runtime::MatmulSpec;

using lazy_test::contiguous;
using lazy_test::strided;

// Elements a storage needs for `layout` (strides are never negative here).
std::int64_t storage_elements(const Layout& layout) {
  std::int64_t last = layout.offset;
  for (int axis = 0; axis < layout.shape.rank(); ++axis) {
    if (layout.shape[axis] == 0) return layout.offset + 1;
    last += (layout.shape[axis] - 1) * layout.strides[axis];
  }
  return last + 1;
}

// A storage on the device and the same elements on the host.
struct Storage {
  std::shared_ptr<DeviceBuffer> buffer;
  std::vector<double> host;
  CUdeviceptr ptr() const { return buffer->ptr(); }
};

// `elements` random values in [-1, 1], rounded to `dtype` (not zeros: a product that reads the
// wrong elements shows).
Storage random_storage(Device& device, DType dtype, std::int64_t elements, std::mt19937& random) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<std::byte> bytes(std::size_t(elements) * lazy::itemsize(dtype));
  Storage storage;
  for (std::int64_t i = 0; i < elements; ++i) {
    lazy::ir::store_double(bytes.data(), dtype, i, uniform(random));
    storage.host.push_back(lazy::ir::load_as_double(bytes.data(), dtype, i));
  }
  storage.buffer = device.allocate(bytes.size());
  device.copy_to_device(storage.ptr(), bytes.data(), bytes.size());
  return storage;
}

std::int64_t address(const Layout& layout, const std::vector<std::int64_t>& index) {
  std::int64_t at = layout.offset;
  for (std::size_t axis = 0; axis < index.size(); ++axis) at += index[axis] * layout.strides[axis];
  return at;
}

double activate(MatmulActivation activation, double x) {
  switch (activation) {
    case MatmulActivation::relu:
      return std::max(x, 0.0);
    case MatmulActivation::gelu_tanh:
      return 0.5 * x *
             (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
    case MatmulActivation::none:
      break;
  }
  return x;
}

// Relative to the sum of |a||b| over k (plus |bias| and |residual|): FP32 accumulation, the
// result's rounding to its dtype, and TF32's 10-bit operands.
double tolerance(DType dtype, bool tf32) {
  if (dtype == DType::f16) return 1e-3;
  if (dtype == DType::bf16) return 8e-3;
  return tf32 ? 3e-3 : 3e-5;
}

struct Product {
  DType dtype = DType::f32;
  Layout a, b;
  std::optional<Layout> residual;
  bool bias = false;
  std::int64_t bias_offset = 0;
  MatmulActivation activation = MatmulActivation::none;
  bool tf32 = false;
};

// The operands' storages for one run of `product`.
struct Operands {
  Storage a, b, bias, residual;
};

Operands random_operands(Device& device, const Product& product, std::mt19937& random) {
  const std::int64_t n = product.b.shape[product.b.shape.rank() - 1];
  Operands operands;
  operands.a = random_storage(device, product.dtype, storage_elements(product.a), random);
  operands.b = random_storage(device, product.dtype, storage_elements(product.b), random);
  if (product.bias) {
    operands.bias = random_storage(device, product.dtype, product.bias_offset + n, random);
  }
  if (product.residual) {
    operands.residual =
        random_storage(device, product.dtype, storage_elements(*product.residual), random);
  }
  return operands;
}

MatmulSpec spec_of(const Product& product) {
  lazy::ir::MatmulMapping mapping =
      lazy::ir::map_matmul(product.a, product.b, product.residual ? &*product.residual : nullptr);
  EXPECT_TRUE(mapping.problem.has_value()) << "the operands' layouts do not map";
  MatmulSpec spec;
  spec.dtype = product.dtype;
  spec.tf32 = product.tf32;
  spec.problem = mapping.problem.value_or(lazy::ir::MatmulProblem{});
  spec.activation = product.activation;
  spec.bias = product.bias;
  spec.bias_offset = product.bias_offset;
  return spec;
}

// Poisons the result, runs the call, and compares every element with the host product.
void run_and_check(Device& device, MatmulCall& call, const Product& product,
                   const Operands& operands, const std::string& what) {
  const int rank = product.a.shape.rank();
  const std::int64_t m = product.a.shape[rank - 2], k = product.a.shape[rank - 1],
                     n = product.b.shape[rank - 1];
  std::int64_t batch = 1;
  for (int axis = 0; axis < rank - 2; ++axis) batch *= product.a.shape[axis];
  const std::size_t result_bytes = std::size_t(batch * m * n) * lazy::itemsize(product.dtype);
  auto result = device.allocate(result_bytes);
  device.fill_bytes(result->ptr(), 0xff, result_bytes);  // NaN in every float dtype
  MatmulPointers pointers;
  pointers.a = operands.a.buffer ? operands.a.ptr() : 0;
  pointers.b = operands.b.buffer ? operands.b.ptr() : 0;
  pointers.bias = product.bias ? operands.bias.ptr() : 0;
  pointers.residual = product.residual ? operands.residual.ptr() : 0;
  pointers.result = result->ptr();
  call.run(device, pointers);
  std::vector<std::byte> bytes(result_bytes);
  device.copy_to_host(bytes.data(), result->ptr(), result_bytes);

  const double tol = tolerance(product.dtype, product.tf32);
  std::vector<std::int64_t> index(rank);
  int reported = 0;
  for (std::int64_t flat = 0; flat < batch * m * n && reported < 5; ++flat) {
    std::int64_t rest = flat;
    for (int axis = rank - 1; axis >= 0; --axis) {
      const std::int64_t size = axis == rank - 1 ? n : product.a.shape[axis];
      index[axis] = rest % size;
      rest /= size;
    }
    const std::int64_t row = index[rank - 2], col = index[rank - 1];
    double sum = 0, scale = 0;
    std::vector<std::int64_t> at = index;
    for (std::int64_t i = 0; i < k; ++i) {
      at[rank - 2] = row;
      at[rank - 1] = i;
      const double x = operands.a.host[address(product.a, at)];
      at[rank - 2] = i;
      at[rank - 1] = col;
      const double y = operands.b.host[address(product.b, at)];
      sum += x * y;
      scale += std::fabs(x * y);
    }
    if (product.bias) {
      const double bias = operands.bias.host[product.bias_offset + col];
      sum += bias;
      scale += std::fabs(bias);
    }
    if (product.residual) {
      const double residual = operands.residual.host[address(*product.residual, index)];
      sum += residual;
      scale += std::fabs(residual);
    }
    const double want = activate(product.activation, sum);
    const double got = lazy::ir::load_as_double(bytes.data(), product.dtype, flat);
    if (!(std::fabs(got - want) <= tol * scale + 1e-30)) {
      ADD_FAILURE() << what << " (" << call.describe() << "): element " << flat << " is " << got
                    << ", the host product says " << want;
      ++reported;
    }
  }
}

class MatmulCallTest : public lazy_test::GpuTest {
 protected:
  Device& device() { return *Device::get(); }

  // Builds the call, runs it on fresh random operands and checks the result; returns the call.
  std::unique_ptr<MatmulCall> check(const Product& product, const std::string& what) {
    auto call = std::make_unique<MatmulCall>(device(), spec_of(product));
    const Operands operands = random_operands(device(), product, random_);
    run_and_check(device(), *call, product, operands, what);
    return call;
  }

  std::mt19937 random_{std::uint32_t(lazy_test::fresh_seed())};
};

TEST_F(MatmulCallTest, ContiguousF32) {
  check({.a = contiguous({64, 96}), .b = contiguous({96, 48})}, "f32 [64, 96] @ [96, 48]");
}

TEST_F(MatmulCallTest, TransposedWeightF16) {
  // x @ w.T with w [40, 80]: b is read transposed, without a copy.
  check({.dtype = DType::f16, .a = contiguous({33, 80}), .b = strided({80, 40}, {1, 80})},
        "f16 x @ w.T");
}

TEST_F(MatmulCallTest, TransposedLeftOperandBf16) {
  check({.dtype = DType::bf16, .a = strided({24, 40}, {1, 24}), .b = contiguous({40, 16})},
        "bf16 x.T @ w");
}

TEST_F(MatmulCallTest, SharedWeightFoldsTheBatchIntoRowsBf16) {
  const Product product{
      .dtype = DType::bf16, .a = contiguous({4, 32, 64}), .b = strided({4, 64, 48}, {0, 1, 64})};
  EXPECT_EQ(spec_of(product).problem.batch, 1);
  check(product, "bf16 linear layer over a batch");
}

TEST_F(MatmulCallTest, StrideZeroBatchThatStaysBatchedF32) {
  const Product product{.a = strided({3, 20, 24}, {480, 1, 20}),
                        .b = strided({3, 24, 16}, {0, 16, 1})};
  EXPECT_EQ(spec_of(product).problem.batch, 3);
  check(product, "f32 batch of transposed a with one shared b");
}

TEST_F(MatmulCallTest, BatchedOperandsWithOddSizesF16) {
  check({.dtype = DType::f16, .a = contiguous({5, 17, 33}), .b = contiguous({5, 33, 9})},
        "f16 [5, 17, 33] @ [5, 33, 9]");
}

TEST_F(MatmulCallTest, MultiAxisBatchF32) {
  check({.a = contiguous({2, 3, 16, 8}), .b = contiguous({2, 3, 8, 12})}, "f32 two batch axes");
}

TEST_F(MatmulCallTest, BiasReluF32) {
  check({.a = contiguous({48, 64}),
         .b = contiguous({64, 40}),
         .bias = true,
         .activation = MatmulActivation::relu},
        "f32 relu(a @ b + bias)");
}

TEST_F(MatmulCallTest, BiasGeluF16) {
  check({.dtype = DType::f16,
         .a = contiguous({64, 128}),
         .b = strided({128, 96}, {1, 128}),
         .bias = true,
         .activation = MatmulActivation::gelu_tanh},
        "f16 gelu(x @ w.T + bias)");
}

TEST_F(MatmulCallTest, ReluWithoutBiasBf16) {
  check({.dtype = DType::bf16,
         .a = contiguous({32, 64}),
         .b = contiguous({64, 32}),
         .activation = MatmulActivation::relu},
        "bf16 relu(a @ b)");
}

TEST_F(MatmulCallTest, GeluWithoutBiasF32) {
  check({.a = contiguous({32, 64}),
         .b = contiguous({64, 32}),
         .activation = MatmulActivation::gelu_tanh},
        "f32 gelu(a @ b)");
}

TEST_F(MatmulCallTest, ResidualF32) {
  check({.a = contiguous({40, 56}), .b = contiguous({56, 24}), .residual = contiguous({40, 24})},
        "f32 a @ b + residual");
}

TEST_F(MatmulCallTest, BiasGeluAndAResidualSharedAcrossTheBatchBf16) {
  const Product product{.dtype = DType::bf16,
                        .a = contiguous({2, 16, 32}),
                        .b = strided({2, 32, 24}, {0, 24, 1}),
                        .residual = strided({2, 16, 24}, {0, 24, 1}),
                        .bias = true,
                        .activation = MatmulActivation::gelu_tanh};
  EXPECT_EQ(spec_of(product).problem.batch, 2);
  check(product, "bf16 gelu(a @ b + bias + residual) with one residual for the batch");
}

TEST_F(MatmulCallTest, EmptyInnerAxisGivesTheEpilogueOfBiasAndResidual) {
  check({.a = contiguous({8, 0}),
         .b = contiguous({0, 12}),
         .residual = contiguous({8, 12}),
         .bias = true,
         .activation = MatmulActivation::relu},
        "f32 relu(bias + residual) over k = 0");
}

TEST_F(MatmulCallTest, EmptyInnerAxisGivesZeros) {
  check({.dtype = DType::f16, .a = contiguous({2, 8, 0}), .b = contiguous({2, 0, 12})},
        "f16 batched product over k = 0");
}

TEST_F(MatmulCallTest, UnalignedLeadingDimensionAndOffsetF16) {
  // 4000 columns of a matrix with rows 4095 elements apart, from element 1: 2-byte aligned.
  check({.dtype = DType::f16, .a = strided({64, 4000}, {4095, 1}, 1), .b = contiguous({4000, 32})},
        "f16 with ld 4095 and offset 1");
}

TEST_F(MatmulCallTest, UnalignedBiasAndOperandsF32) {
  check({.a = strided({16, 30}, {31, 1}, 1),
         .b = strided({30, 20}, {21, 1}, 3),
         .bias = true,
         .bias_offset = 1,
         .activation = MatmulActivation::relu},
        "f32 with odd lds, offsets and bias offset");
}

TEST_F(MatmulCallTest, Tf32) {
  check({.a = contiguous({128, 256}), .b = contiguous({256, 64}), .tf32 = true}, "f32 on TF32");
}

TEST_F(MatmulCallTest, RunsAgainWithOtherBuffers) {
  const Product product{.dtype = DType::f16,
                        .a = contiguous({32, 64}),
                        .b = contiguous({64, 48}),
                        .bias = true,
                        .activation = MatmulActivation::relu};
  MatmulCall call(device(), spec_of(product));
  for (int replay = 0; replay < 3; ++replay) {
    const Operands operands = random_operands(device(), product, random_);
    run_and_check(device(), call, product, operands, "replay " + std::to_string(replay));
  }
}

TEST_F(MatmulCallTest, EmptyProductQueuesNothing) {
  MatmulCall call(device(), spec_of({.a = contiguous({0, 8}), .b = contiguous({8, 5})}));
  EXPECT_EQ(call.algorithm_source(), MatmulAlgorithmSource::none);
  call.run(device(), MatmulPointers{});
  device().synchronize();
}

TEST_F(MatmulCallTest, WithoutAutotuneTheHeuristicChooses) {
  EXPECT_EQ(
      check({.a = contiguous({16, 16}), .b = contiguous({16, 16})}, "f32")->algorithm_source(),
      MatmulAlgorithmSource::heuristic);
}

// ---- LAZY_AUTOTUNE ----

constexpr const char* kChildVariable = "LAZY_TEST_MATMUL_AUTOTUNE_CHILD";

// The product both the test and its child process tune.
const Product kTunedProduct{.dtype = DType::f16,
                            .a = contiguous({256, 512}),
                            .b = strided({512, 384}, {1, 512}),
                            .bias = true,
                            .activation = MatmulActivation::gelu_tanh};

class ScopedAutotune {
 public:
  ScopedAutotune() { ::setenv("LAZY_AUTOTUNE", "1", 1); }
  ~ScopedAutotune() { ::unsetenv("LAZY_AUTOTUNE"); }
};

std::vector<std::filesystem::path> algorithm_entries(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> found;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(root, error), end; !error && it != end;
       it.increment(error)) {
    if (it->path().extension() == ".algo") found.push_back(it->path());
  }
  return found;
}

TEST_F(MatmulCallTest, AutotuneTimesOnceAndTheNextProcessReadsTheAlgorithmFromDisk) {
  if (std::getenv(kChildVariable) != nullptr) GTEST_SKIP() << "the child runs the other test";
  lazy::jit::DiskCache& cache = lazy::jit::disk_cache();
  ASSERT_TRUE(cache.usable()) << "the kernel cache directory is needed for the algorithm store";
  for (const auto& entry : algorithm_entries(cache.config().root)) std::filesystem::remove(entry);
  ScopedAutotune autotune;

  auto first = check(kTunedProduct, "autotuned f16 gelu(x @ w.T + bias)");
  EXPECT_EQ(first->algorithm_source(), MatmulAlgorithmSource::autotuned);
  EXPECT_EQ(algorithm_entries(cache.config().root).size(), 1u);
  // This process remembers it.
  MatmulCall again(device(), spec_of(kTunedProduct));
  EXPECT_EQ(again.algorithm_source(), MatmulAlgorithmSource::autotuned);

  // This test program again, running only the child's test.
  const std::string command =
      std::string(kChildVariable) + "=1 LAZY_AUTOTUNE=1 " +
      std::filesystem::read_symlink("/proc/self/exe").string() +
      " --gtest_filter=MatmulCallTest.AutotunedChildReadsTheAlgorithmFromDisk";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

TEST_F(MatmulCallTest, AutotunedChildReadsTheAlgorithmFromDisk) {
  if (std::getenv(kChildVariable) == nullptr) GTEST_SKIP() << "runs as the previous test's child";
  auto call = check(kTunedProduct, "f16 product tuned by the parent process");
  EXPECT_EQ(call->algorithm_source(), MatmulAlgorithmSource::from_disk);
}

}  // namespace
