// Generated kernels, without a GPU: partitions of varied graphs turn into CUDA sources that NVRTC
// compiles for sm_90, and the sources read like the user's code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>

#include <lazy/lazy.h>

#include "codegen/iteration_space.h"
#include "codegen/kernel_sources.h"
#include "codegen_test_support.h"
#include "scoped_variable.h"

namespace {

using lazy::ir::Trace;
using ::testing::HasSubstr;
using ::testing::Not;

using lazy_test::expect_compiles;
using lazy_test::generate_pending;
using lazy_test::Generated;

class Codegen : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!lazy::jit::nvrtc_available(&why)) GTEST_SKIP() << "no NVRTC: " << why;
    lazy::sync();
  }
  void TearDown() override { Trace::current().clear(); }
};

TEST_F(Codegen, QuickstartChainIsOneKernelThatCompiles) {
  lazy::Tensor x = lazy::randn({64, 4096}, 1);
  lazy::Tensor bias = lazy::randn({4096}, 2);
  lazy::Tensor residual = lazy::randn({64, 4096}, 3);
  lazy::eval({x, bias, residual});
  lazy::Tensor y = lazy::gelu_tanh((x + bias) * 1.2f) + residual;
  Generated g = generate_pending();
  ASSERT_EQ(g.kernels.size(), 1u);
  const std::string& source = g.kernels[0].source;
  EXPECT_THAT(source, HasSubstr("test_codegen.cpp:"));
  EXPECT_THAT(source, HasSubstr("lz_gelu_tanh("));
  EXPECT_THAT(g.kernels[0].name, HasSubstr("lz_add_mul"));
  EXPECT_EQ(g.kernels[0].vector_width, 4);
  expect_compiles(g);
  std::printf("%s\n", source.c_str());
}

lazy::Tensor computed(const lazy::Shape& shape, lazy::DType dtype = lazy::f32) {
  lazy::Tensor t = lazy::randn(shape, 5, dtype);
  lazy::eval({t});
  return t;
}

TEST_F(Codegen, HalfPrecisionChainsWithViewsCompile) {
  for (lazy::DType dtype : {lazy::f16, lazy::bf16}) {
    lazy::Tensor a = computed({64, 128}, dtype);
    lazy::Tensor b = computed({128, 64}, dtype);
    lazy::Tensor y = lazy::silu(a + b.transpose(0, 1)) *
                     lazy::sigmoid(a.slice(1, std::nullopt, std::nullopt, -1));
    Generated g = generate_pending();
    ASSERT_EQ(g.kernels.size(), 1u);
    EXPECT_THAT(g.kernels[0].source, HasSubstr("lz_f32_to_"));
    expect_compiles(g);
    Trace::current().clear();
  }
}

TEST_F(Codegen, IntegerBoolAndCastGraphsCompile) {
  lazy::Tensor i = (computed({33, 65}) * 100.0f).to(lazy::i32);
  lazy::Tensor l = (computed({65}) * 100.0f).to(lazy::i64);
  lazy::eval({i, l});
  lazy::Tensor y = lazy::where(i > l, i * l, lazy::pow(i, 2)) + lazy::abs(-i);
  lazy::Tensor z = lazy::logical_and(i != 0, lazy::logical_not(l > 3)).to(lazy::f16);
  lazy::Tensor w = (i / l).to(lazy::i32) + lazy::sign(l);
  expect_compiles(generate_pending());
}

TEST_F(Codegen, GeneratorsCompile) {
  lazy::Tensor r =
      lazy::rand({1000}, 1, lazy::bf16) + lazy::randn({1000}, 2) * lazy::arange(0.0, 100.0, 0.1);
  lazy::Tensor k = lazy::arange(-7, 993) * 3;
  expect_compiles(generate_pending());
}

TEST_F(Codegen, UnalignedAndStridedVariantsCompile) {
  lazy::Tensor a = computed({100, 33});
  lazy::Tensor y = lazy::exp(a.slice(1, 1, 33));  // no vectors: offset 1
  lazy::Tensor z = lazy::tanh(a.transpose(0, 1)) + a.transpose(0, 1).slice(0, 0, 33, 1);
  Generated g = generate_pending();
  ASSERT_EQ(g.kernels.size(), 2u);
  EXPECT_EQ(g.kernels[0].vector_width, 1);
  expect_compiles(g);
}

// x[1:] - x[:-1]: the load at offset 1 reads its group's elements one by one, x[:-1] one vector a
// group, and the result is stored as vectors; x[1:] * x[3:] would read more bytes alone than as
// vectors, so it takes an element a thread.
TEST_F(Codegen, AnUnalignedLoadReadsItsElementsAloneBesideVectors) {
  const std::int64_t n = 1 << 20;
  lazy::Tensor x = computed({n + 3});
  lazy::Tensor diff = x.slice(0, 1, n + 1) - x.slice(0, 0, n);
  Generated g = generate_pending();
  ASSERT_EQ(g.kernels.size(), 1u);
  const std::string& source = g.kernels[0].source;
  EXPECT_EQ(g.kernels[0].vector_width, 4);
  EXPECT_THAT(source, HasSubstr("= lz_load_vec<4>("));
  EXPECT_THAT(source, HasSubstr(" + (Offset)i + (Offset)e];"));
  EXPECT_THAT(source, HasSubstr("lz_store_vec<4>("));
  expect_compiles(g);
  Trace::current().clear();
  lazy::Tensor y = computed({n + 3});
  lazy::Tensor product = y.slice(0, 1, n + 1) * y.slice(0, 3, n + 3);
  Generated alone = generate_pending();
  ASSERT_EQ(alone.kernels.size(), 1u);
  EXPECT_EQ(alone.kernels[0].vector_width, 1);
}

// A shape too small to fill the GPU at 4 f32 a thread takes one, unless LAZY_BYTES_PER_THREAD
// forces the width (the fuzzer's way to reach vector groups with small shapes).
TEST_F(Codegen, ForcedBytesPerThreadHoldsAtSmallSizes) {
  const auto width_of_small_kernel = [](const char* forced) {
    lazy_test::ScopedVariable variable(lazy::ir::Setting::bytes_per_thread, forced);
    lazy::Tensor y = lazy::exp(computed({1000})) + 1.0f;
    Generated g = generate_pending();
    Trace::current().clear();
    return g.kernels.size() == 1 ? g.kernels[0].vector_width : -1;
  };
  EXPECT_EQ(width_of_small_kernel(nullptr), 1);
  EXPECT_EQ(width_of_small_kernel("16"), 4);
  EXPECT_EQ(width_of_small_kernel("64"), 16);
}

TEST_F(Codegen, SizesPast2To31Use64BitIndices) {
  lazy::Tensor y = lazy::rand({(std::int64_t(1) << 31) + 5}, 3, lazy::f16) * 2.0f;
  Generated g = generate_pending();
  ASSERT_EQ(g.kernels.size(), 1u);
  EXPECT_THAT(g.kernels[0].source, HasSubstr("typedef unsigned long long Index"));
  expect_compiles(g);
}

// Memory that is never read: the kernels are generated, not run.
lazy::Tensor unread(const lazy::Shape& shape, lazy::DType dtype) {
  return lazy::from_blob(reinterpret_cast<void*>(std::uintptr_t(1) << 20), shape, {}, dtype,
                         lazy::MemoryKind::host);
}

// Found in review: a merged size that is a multiple of 2^32 (a [2^20, 4096] positional table
// broadcast over a batch) became a fast-division constant of 0, a SIGFPE in the generator,
// though 64-bit kernels never divide through those constants.
TEST_F(Codegen, AMergedSizeOf2To32UnderABroadcastGivesA64BitKernel) {
  const lazy::Tensor y =
      unread({4, 1 << 20, 4096}, lazy::bf16) + unread({1 << 20, 4096}, lazy::bf16);
  Generated g = generate_pending();
  ASSERT_EQ(g.kernels.size(), 1u);
  EXPECT_THAT(g.kernels[0].source, HasSubstr("typedef unsigned long long Index"));
  EXPECT_THAT(g.kernels[0].source, Not(HasSubstr("lz_fast_div")));
  expect_compiles(g);
}

// A concatenation longer than 2^31 read through a short slice is a 32-bit kernel: its positions
// stay below the period, which was once truncated into a fast-division constant (an error).
TEST_F(Codegen, AConcatenationPast2To31ReadThroughASliceRunsIn32Bits) {
  const std::int64_t half = (std::int64_t(1) << 30) + 8;
  const lazy::Tensor y =
      lazy::cat({unread({half}, lazy::f32) + 1.0f, unread({half}, lazy::f32) + 2.0f})
          .slice(0, half - 4, half + 4) *
      3.0f;
  Generated g = generate_pending();
  ASSERT_EQ(g.kernels.size(), 1u);
  EXPECT_THAT(g.kernels[0].source, HasSubstr("typedef unsigned int Index"));
  expect_compiles(g);
}

// Found in review: a reduction over an empty axis still writes every result; more than 2^31 of
// them overflowed 32-bit indices.
TEST_F(Codegen, AReductionOverAnEmptyAxisWritingPast2To31ResultsUses64BitIndices) {
  const lazy::Tensor y = lazy::sum(unread({5'000'000'000, 0}, lazy::f32), 1);
  Generated g = generate_pending();
  ASSERT_EQ(g.kernels.size(), 1u);
  EXPECT_THAT(g.kernels[0].source, HasSubstr("typedef unsigned long long Index"));
  expect_compiles(g);
}

TEST_F(Codegen, UnfusedAndFastMathKernelsCompile) {
  lazy::Tensor x = computed({256});
  lazy::Tensor y = lazy::tanh(lazy::sigmoid(x * 1.01f + 0.1f) - 0.25f) * 0.9f;
  Generated unfused = generate_pending(/*fusion=*/false);
  EXPECT_EQ(unfused.kernels.size(), 6u);
  expect_compiles(unfused);
  Generated fast = generate_pending(/*fusion=*/true, /*fast_math=*/true);
  ASSERT_EQ(fast.kernels.size(), 1u);
  EXPECT_THAT(fast.kernels[0].source, HasSubstr("lz_tanh_fast("));
  expect_compiles(fast);
}

// A periodic heat step reads four rolls of one grid in one kernel. The rolls along rows keep
// each group of 4 elements in one part, so each reads one vector from the part its group lies in;
// the rolls along columns split groups, so they read element by element.
TEST_F(Codegen, AStencilReadsItsRowRollsAsVectorsAndItsColumnRollsByElement) {
  lazy::Tensor u = computed({512, 1024});
  lazy::Tensor heat = lazy::roll(u, 1, 0) + lazy::roll(u, -1, 0) + lazy::roll(u, 1, 1) +
                      lazy::roll(u, -1, 1) - u * 4.0f;
  Generated g = generate_pending();
  ASSERT_EQ(g.kernels.size(), 1u);
  const std::string& source = g.kernels[0].source;
  EXPECT_EQ(g.kernels[0].vector_width, 4);
  auto count = [&](const std::string& text) {
    std::size_t n = 0;
    for (std::size_t at = source.find(text); at != std::string::npos;
         at = source.find(text, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("= lz_load_vec<4>(q"), 2u) << source;
  EXPECT_EQ(count("lz_store_vec<4>("), 1u) << source;
  // Each column roll picks an element of one of its two parts, for each of the group's elements.
  EXPECT_EQ(count("(Offset)i + (Offset)e] : &"), 2u) << source;
  expect_compiles(g);
}

TEST_F(Codegen, KernelSourceDoesNotDependOnSizes) {
  auto source_for = [](std::int64_t rows) {
    lazy::Tensor x = computed({rows, 256});
    lazy::Tensor y = lazy::exp(x) * 2.0f;
    std::string source = generate_pending().kernels.at(0).source;
    Trace::current().clear();
    return source;
  };
  EXPECT_EQ(source_for(64), source_for(96));
}

TEST_F(Codegen, SmallTensorsHeavyInMathTakeOneElementAThreadSoMoreSmsShareThem) {
  auto width_for = [](std::int64_t n) {
    lazy::Tensor y = computed({n});
    for (int i = 0; i < 4; ++i) y = lazy::exp(lazy::sin(y));
    const int width = generate_pending().kernels.at(0).vector_width;
    Trace::current().clear();
    return width;
  };
  EXPECT_EQ(width_for(4096), 1);
  EXPECT_EQ(width_for(std::int64_t(1) << 20), 8);  // 32 bytes of f32 a thread
}

TEST_F(Codegen, LongTranscendentalChainsTakeFewerElementsAThreadSoTheirCodeStaysSmall) {
  auto width_for = [](int sins) {
    lazy::Tensor y = computed({std::int64_t(1) << 22});
    for (int i = 0; i < sins; ++i) y = lazy::sin(y);
    const int width = generate_pending().kernels.at(0).vector_width;
    Trace::current().clear();
    return width;
  };
  EXPECT_EQ(width_for(8), 8);   // 64 unrolled sins
  EXPECT_EQ(width_for(16), 4);  // 64
  EXPECT_EQ(width_for(20), 2);  // 40: 3 would be 60, but groups are powers of 2
  EXPECT_EQ(width_for(65), 1);
  EXPECT_EQ(lazy::codegen::most_elements_per_thread(0), lazy::codegen::kUnrolledTranscendentals);
}

// A pointwise kernel's text holds no size: another shape of the same chain finds it cached, checked
// against a fresh generation, and only the arguments differ. A transposed input is walked with
// strides: another text, not the dense one, and so is an operand broadcast from one element.
TEST_F(Codegen, APointwiseKernelsTextServesOtherShapesOfItsChain) {
  lazy::codegen::set_kernel_text_checks(true);
  auto chain = [](const lazy::Tensor& x) { return lazy::tanh(x * 2.0f) + 1.0f; };
  std::vector<lazy::codegen::GeneratedKernel> kernels;
  for (const lazy::Shape& shape : {lazy::Shape{1000}, lazy::Shape{4096}, lazy::Shape{64, 32}}) {
    lazy::Tensor x = computed(shape);
    lazy::Tensor y = chain(shape.rank() == 2 ? x.transpose(0, 1) : x);
    Generated g = generate_pending();
    ASSERT_EQ(g.kernels.size(), 1u);
    kernels.push_back(g.kernels[0]);
    Trace::current().clear();
  }
  // An operand broadcast from one element is read once, before the loop; a dense one in it.
  for (bool broadcast : {false, true}) {
    const lazy::Tensor b = broadcast ? computed({1}).expand({4096}) : computed({4096});
    lazy::Tensor y = chain(computed({4096}) + b);
    Generated g = generate_pending();
    ASSERT_EQ(g.kernels.size(), 1u);
    kernels.push_back(g.kernels[0]);
    Trace::current().clear();
  }
  lazy::codegen::set_kernel_text_checks(false);
  EXPECT_NE(kernels[3].source, kernels[4].source);
  EXPECT_EQ(kernels[0].name, kernels[1].name);
  EXPECT_EQ(kernels[0].source, kernels[1].source);
  ASSERT_EQ(kernels[0].args.size(), kernels[1].args.size());
  EXPECT_NE(kernels[0].args[0].value, kernels[1].args[0].value);  // the element count
  EXPECT_NE(kernels[0].source, kernels[2].source);
  EXPECT_THAT(kernels[2].source, HasSubstr("a.st"));
}

}  // namespace
