// Regression tests for what a random-program tester found (issue 11): each bug's shrunk program,
// checked without a GPU where the bug shows in the plan or the generated source, and run on the
// GPU (fused and unfused, outputs poisoned) against the reference evaluator.
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "codegen/iteration_space.h"
#include "codegen/kernel_builder.h"
#include "codegen_test_support.h"
#include "fuzz_reproducers.h"
#include "gpu_test_support.h"
#include "ir/dtype_codec.h"
#include "ir/trace.h"
#include "ref/evaluator.h"
#include "tools/fuzz/input_values.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy::codegen::ArgSource;
using lazy::ir::Trace;
using Program = std::function<std::vector<Tensor>()>;

class FuzzRegressions : public ::testing::Test {
 protected:
  void TearDown() override {
    Trace::current().clear();
    lazy::set_fusion_enabled(true);
  }
};

// The value of pending node `index` as the reference evaluator computes it.
double reference_value(std::uint32_t index) {
  Trace& trace = Trace::current();
  std::vector<bool> live(trace.pending().size(), false);
  live[index] = true;
  std::optional<lazy::ir::TensorData> data = lazy::ref::evaluate(trace.pending(), live)[index];
  return lazy::ir::load_as_double(data->storage->host.data(), data->storage->dtype,
                                  data->layout.offset);
}

// What a kernel computes from a scalar argument: f32 bits for floating dtypes, else an integer.
double argument_value(std::uint64_t bits, DType dtype) {
  if (lazy::is_floating(dtype)) return std::bit_cast<float>(std::uint32_t(bits));
  return double(std::int64_t(bits));
}

// Every Scalar argument of every kernel of what is pending, next to the reference's value of it.
void expect_scalar_arguments_match_reference(bool fusion, const std::string& what) {
  const lazy_test::Generated generated = lazy_test::generate_pending(fusion);
  const lazy::fuse::Graph& graph = generated.partition.graph;
  for (const lazy::codegen::GeneratedKernel& kernel : generated.kernels) {
    for (const ArgSource& arg : kernel.args) {
      if (arg.kind != ArgSource::Kind::scalar_float && arg.kind != ArgSource::Kind::scalar_int)
        continue;
      // Arguments name nodes of the partitioned graph; those a rewrite added are its constants.
      const std::int32_t recorded = graph.recorded[arg.value];
      if (recorded == lazy::fuse::Graph::kAdded) continue;
      const lazy::ir::Node& node = *graph.nodes[arg.value];
      EXPECT_EQ(argument_value(lazy::codegen::scalar_argument(node), node.dtype),
                reference_value(std::uint32_t(recorded)))
          << what << ": scalar %" << arg.value << " of " << kernel.name;
    }
  }
}

TEST_F(FuzzRegressions, FloatingNumberFilledIntoBoolOrIntegerIsPassedAsItsValueThere) {
  struct Case {
    double number;
    DType dtype;
    double want;
  };
  for (Case c :
       {Case{3.0, DType::bool_, 1}, Case{-0.125, DType::bool_, 1}, Case{NAN, DType::bool_, 1},
        Case{0.0, DType::bool_, 0}, Case{1.5, DType::i32, 1}, Case{-2.5, DType::i64, -2}}) {
    Tensor t = lazy::full({4}, c.number, c.dtype);
    const lazy::ir::Node& scalar = *t.node()->inputs[0];
    ASSERT_EQ(scalar.op, lazy::ir::Op::Scalar);
    EXPECT_EQ(argument_value(lazy::codegen::scalar_argument(scalar), c.dtype), c.want)
        << c.number << " as " << lazy::dtype_name(c.dtype);
    Trace::current().clear();
  }
}

// The kernel's argument and the reference's value agree. Both go through f32, as PyTorch's
// full() does: 1 + 2^-11 + 2^-40 is 1 + 2^-11 there, a tie that f16 rounds to even (1).
TEST_F(FuzzRegressions, NarrowFloatScalarIsRoundedThroughF32AsPyTorch) {
  const double number = 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  Tensor t = lazy::full({4}, number, DType::f16);
  const lazy::ir::Node& scalar = *t.node()->inputs[0];
  EXPECT_EQ(argument_value(lazy::codegen::scalar_argument(scalar), DType::f16), 1.0);
  EXPECT_EQ(t.to_vector<double>()[0], 1.0);
}

TEST_F(FuzzRegressions, ScalarArgumentsOfTheReproducersAreTheReferenceValues) {
  const std::pair<const char*, Program> programs[] = {
      {"p559", lazy_test::fuzz::program_p559}, {"p242", lazy_test::fuzz::program_p242},
      {"p153", lazy_test::fuzz::program_p153}, {"p304", lazy_test::fuzz::program_p304},
      {"p441", lazy_test::fuzz::program_p441}, {"p34-44", lazy_test::fuzz::program_p34_to_44}};
  for (const auto& [name, program] : programs) {
    for (bool fusion : {true, false}) {
      std::vector<Tensor> outputs = program();
      expect_scalar_arguments_match_reference(fusion, name);
      Trace::current().clear();
    }
  }
}

TEST_F(FuzzRegressions, RankZeroReductionsOfAScalarChainGenerateAndCompute) {
  std::vector<Tensor> out = lazy_test::fuzz::program_p559();
  const lazy_test::Generated generated = lazy_test::generate_pending();  // crashed here
  EXPECT_EQ(generated.kernels.size(), 3u);
  if (std::string why; lazy::jit::nvrtc_available(&why)) lazy_test::expect_compiles(generated);
  lazy::eval(out);
  const double s = double(std::sin(3.0f));
  EXPECT_EQ(out[0].item<std::int64_t>(), 3);
  EXPECT_NEAR(out[1].item<double>(), s, 1e-6);
  EXPECT_NEAR(out[2].to_vector<double>().at(0), s, 1e-6);
  EXPECT_NEAR(out[3].item<double>(), std::expm1(std::sin(1 / std::sqrt(s + 0.25))), 1e-5);
}

TEST_F(FuzzRegressions, EmptyIterationSpaceHasNoUniformAccess) {
  const lazy::codegen::Access access{lazy::ir::Layout::contiguous(Shape{1, 0}), 4};
  const lazy::codegen::IterationSpace space =
      lazy::codegen::plan_iteration_space(Shape{1, 0}, std::span(&access, 1));
  ASSERT_EQ(space.accesses.size(), 1u);
  EXPECT_NE(space.accesses[0].mode, lazy::codegen::AccessMode::uniform);
}

// True when the kernel reads a tensor (a.in<t>[...]) before its first loop: what a kernel over
// no elements must not do.
bool reads_before_loop(const std::string& source) {
  const std::size_t loop = source.find("  for (");
  const std::size_t read = source.find("= a.in");
  return read != std::string::npos && read < loop;
}

// Every kernel over an empty iteration space that still launches (a reduction writing its
// identity) reads nothing outside its loops.
void expect_empty_kernels_read_nothing(bool fusion, const std::string& what) {
  const lazy_test::Generated generated = lazy_test::generate_pending(fusion);
  int empty = 0;
  for (std::size_t k = 0; k < generated.kernels.size(); ++k) {
    const lazy::codegen::GeneratedKernel& kernel = generated.kernels[k];
    if (generated.partition.regions[k].shape.numel() != 0 || kernel.written == 0) continue;
    ++empty;
    EXPECT_FALSE(reads_before_loop(kernel.source)) << what << "\n" << kernel.source;
  }
  EXPECT_GT(empty, 0) << what;
}

TEST_F(FuzzRegressions, ReductionOfAnEmptyKernelOutputReadsNoElement) {
  lazy::set_fusion_enabled(false);
  Tensor x = lazy::from_data(std::vector<float>{}, {1, 0});
  Tensor y = lazy::sum(x * 2.0f, {}, false);
  expect_empty_kernels_read_nothing(false, "sum(x * 2) of [1, 0] unfused");
}

TEST_F(FuzzRegressions, SeveralProgramsSyncedTogetherReadNoElementOfEmptyTensors) {
  for (bool fusion : {false, true}) {
    std::vector<Tensor> outputs = lazy_test::fuzz::program_p34_to_44();
    expect_empty_kernels_read_nothing(fusion, fusion ? "p34-44 fused" : "p34-44 unfused");
    Trace::current().clear();
  }
}

// lazyfuse-fuzz seed 17051 program 1114, shrunk: a matrix product and a scatter both read a
// broadcast scalar (ones), which each must write densely. Once one pass of build_terms built
// every region, the second asked for the same cut again and stopped as an internal error.
TEST_F(FuzzRegressions, TwoLibraryCallsReadingOneBroadcastScalarWriteItOnce) {
  const Tensor ones = lazy::ones({1, 1}, DType::bf16);
  const Tensor product =
      lazy::matmul(lazy::from_data(std::vector<float>{-1.5f}, {1}, DType::bf16), ones);
  const Tensor below = lazy::le(ones, product);
  const Tensor scattered =
      lazy::scatter(ones, 1, lazy::from_data(std::vector<std::int64_t>{0}, {1, 1}),
                    lazy::from_data(std::vector<float>{2.0f}, {1, 1}, DType::bf16));
  const Tensor added =
      lazy::index_add(scattered, 0, lazy::from_data(std::vector<std::int64_t>{0}, {1}),
                      lazy::from_data(std::vector<float>{0.75f}, {1, 1}, DType::bf16));
  lazy::eval({below, added});
  EXPECT_EQ(below.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(added.to_vector<double>(), (std::vector<double>{2.75}));
}

// arange's double values round to f16 once, as in the reference: through a rounded f32 they
// could land on a tie and round again. Integers go to bf16 through f32 as PyTorch's casts do (two
// roundings: 2^24 + 2^16 + 1 is 2^24), in kernels as in the reference.
constexpr double kTwo24 = 16777216;  // 2^24

std::vector<Tensor> integer_to_bf16_program() {
  Tensor x = lazy::from_data(std::vector<std::int64_t>{std::int64_t(kTwo24) + 65536 + 1}, {1});
  return {x.to(DType::bf16)};
}

// 1 + 2^-11 + i * 2^-30: above f16's tie for i > 0, on it after rounding to f32.
std::vector<Tensor> narrow_arange_program() {
  const double start = 1 + std::ldexp(1.0, -11), step = std::ldexp(1.0, -30);
  return {lazy::arange(start, start + 4 * step, step, DType::f16)};
}

TEST_F(FuzzRegressions, IntegerToBf16AndNarrowArangeRoundAsPyTorchInKernels) {
  std::vector<Tensor> cast = integer_to_bf16_program();
  std::vector<Tensor> range = narrow_arange_program();
  const lazy_test::Generated generated = lazy_test::generate_pending();
  std::string sources;
  for (const auto& kernel : generated.kernels) sources += kernel.source;
  // The device functions that round (lz_int_to_bf16 and lz_f64_to_f32_odd inside).
  EXPECT_NE(sources.find("lz_cast_bf16("), std::string::npos);
  EXPECT_NE(sources.find("lz_arange_f16("), std::string::npos);
  if (std::string why; lazy::jit::nvrtc_available(&why)) lazy_test::expect_compiles(generated);
  lazy::eval({cast[0], range[0]});
  EXPECT_EQ(cast[0].to_vector<double>()[0], kTwo24);
  const double up = 1 + std::ldexp(1.0, -10);
  EXPECT_EQ(range[0].to_vector<double>(), (std::vector<double>{1, up, up, up}));
}

// On the GPU: every output of `program`, fused and unfused, against the reference evaluator.
// The tolerances allow f16 and bf16 chains kept in f32 inside kernels (the reference rounds each
// op); the bugs they guard against are wrong by far more (0 for 1, NaN, lost contexts).
void expect_gpu_matches_reference(const Program& program, const std::string& what,
                                  double chain_tolerance = 0) {
  auto tolerance = [&](DType dtype) {
    if (chain_tolerance > 0 && is_floating(dtype)) return chain_tolerance;
    switch (dtype) {
      case DType::f32:
        return 1e-4;
      case DType::f16:
        return 1e-2;
      case DType::bf16:
        return 4e-2;
      default:
        return 0.0;
    }
  };
  lazy::runtime::set_reference_execution(true);
  std::vector<Tensor> want = program();
  lazy::eval(want);
  lazy::runtime::set_reference_execution(false);
  for (bool fusion : {true, false}) {
    lazy::set_fusion_enabled(fusion);
    std::vector<Tensor> got = program();
    lazy::eval(got);
    const std::string run = what + (fusion ? " fused" : " unfused");
    ASSERT_EQ(got.size(), want.size()) << run;
    for (std::size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(got[k].dtype(), want[k].dtype()) << run;
      ASSERT_EQ(got[k].shape(), want[k].shape()) << run;
      lazy_test::expect_close(got[k].to_vector<double>(), want[k].to_vector<double>(),
                              tolerance(got[k].dtype()), run + " output " + std::to_string(k),
                              chain_tolerance * 1e-3);
    }
  }
  lazy::set_fusion_enabled(true);
}

// lazyfuse-fuzz seed 201, program 288, shrunk: a NaN cast to i64 came back as the most negative
// i64 (the conversion instruction's answer for 64 bits); PyTorch's and the reference's is 0.
std::vector<Tensor> nan_to_integer_program() {
  std::vector<double> values = {NAN, INFINITY, -INFINITY, -0.0, 3.75, -1e30, 7};
  Tensor x = lazy::from_data(values, {7}, DType::f32);
  return {lazy::cast(x, DType::i64), lazy::cast(x, DType::i32), (x * 2.0f).to(DType::i64),
          lazy::cast(x.to(DType::bf16), DType::i64)};
}

// lazyfuse-fuzz seed 203, program 998, shrunk: the max of an f16 tensor, synced with a
// pointwise result of the same length, came back wrong from the fused kernels.
std::vector<Tensor> f16_max_beside_pointwise_program() {
  using lazy::fuzz::fz_floats;
  Tensor x =
      lazy::from_data(fz_floats(0xc0ddff5971266de4ull, 2049, 0.5, 1.5, -1, 0), {2049}, DType::f32);
  Tensor y =
      lazy::from_data(fz_floats(0x6fc05207b25c72dfull, 2049, 0.1, 5.0, -1, 0), {2049}, DType::f16);
  return {lazy::max(y, {}, true), lazy::div(lazy::cast(lazy::silu(x), DType::f16), 10.0)};
}

// True when the row kernel reads a tensor before its loop over rows (row-invariant loads held
// for every row).
bool reads_before_row_loop(const std::string& source) {
  const std::size_t loop = source.find("for (long long first");
  const std::size_t read = source.find("= a.in");
  return read != std::string::npos && read < loop;
}

TEST_F(FuzzRegressions, OneRowKernelHoldsNothingBeforeItsLoopOverRows) {
  std::vector<Tensor> outputs = f16_max_beside_pointwise_program();
  const lazy_test::Generated generated = lazy_test::generate_pending();
  ASSERT_EQ(generated.kernels.size(), 1u);
  EXPECT_FALSE(reads_before_row_loop(generated.kernels[0].source)) << generated.kernels[0].source;
}

TEST_F(FuzzRegressions, NormWeightsAreStillHeldBeforeTheLoopOverRows) {
  Tensor x = lazy::randn({64, 1001}, 1);
  Tensor w = lazy::from_data(std::vector<float>(1001, 0.5f), {1001});
  Tensor b = lazy::from_data(std::vector<float>(1001, 0.25f), {1001});
  Tensor y = lazy::layer_norm(x, w, b);
  const lazy_test::Generated generated = lazy_test::generate_pending();
  ASSERT_EQ(generated.kernels.size(), 1u);
  EXPECT_TRUE(reads_before_row_loop(generated.kernels[0].source)) << generated.kernels[0].source;
}

// A reduction whose input is the same for every row (broadcast), beside an epilogue of another
// row-invariant tensor: the shape of the lane-0-only fold, with several rows.
std::vector<Tensor> broadcast_row_reduction_program() {
  std::vector<float> v(2049), u(2049);
  for (int i = 0; i < 2049; ++i) v[i] = float(i % 1500) + 1, u[i] = float(i % 7) * 0.25f;
  Tensor rows = lazy::from_data(v, {2049}).expand({3, 2049});
  Tensor other = lazy::from_data(u, {2049}).expand({3, 2049});
  Tensor total = lazy::sum(rows, -1, true);
  return {lazy::max(rows, -1, true), total, lazy::silu(other) + total};
}

class GpuFuzzRegressions : public lazy_test::GpuTest {
 protected:
  void TearDown() override {
    lazy::set_fusion_enabled(true);
    lazy_test::GpuTest::TearDown();
  }
};

TEST_F(GpuFuzzRegressions, RankZeroScalarChainMatchesReference) {
  expect_gpu_matches_reference(lazy_test::fuzz::program_p559, "p559");
}

TEST_F(GpuFuzzRegressions, GeluOfMinimumWithFilledBoolMatchesReference) {
  expect_gpu_matches_reference(lazy_test::fuzz::program_p242, "p242");
}

TEST_F(GpuFuzzRegressions, WhereOfRankZeroFilledBoolMatchesReference) {
  expect_gpu_matches_reference(lazy_test::fuzz::program_p153, "p153");
}

TEST_F(GpuFuzzRegressions, MaximumOfFilledBoolMatchesReference) {
  expect_gpu_matches_reference(lazy_test::fuzz::program_p304, "p304");
}

TEST_F(GpuFuzzRegressions, AllOfFilledIntegerMatchesReference) {
  expect_gpu_matches_reference(lazy_test::fuzz::program_p441, "p441");
}

TEST_F(GpuFuzzRegressions, ElevenProgramsSyncedTogetherMatchReference) {
  // f32 results of bf16 chains (p41: pow of a bf16 sum) differ by bf16 roundings a fused kernel
  // skips (docs/semantics.md), a std of one element by a rounding residue; the bugs this guards
  // against (an illegal address, values never written) are far larger.
  expect_gpu_matches_reference(lazy_test::fuzz::program_p34_to_44, "p34-44", 2e-2);
}

TEST_F(GpuFuzzRegressions, IntegerToBf16AndNarrowArangeMatchReferenceExactly) {
  expect_gpu_matches_reference(integer_to_bf16_program, "i64 to bf16");
  expect_gpu_matches_reference(narrow_arange_program, "f16 arange");
}

TEST_F(GpuFuzzRegressions, NanCastToIntegersIsZeroAndInfinitiesSaturate) {
  expect_gpu_matches_reference(nan_to_integer_program, "NaN and infinities to integers");
}

TEST_F(GpuFuzzRegressions, F16MaxBesidePointwiseOutputMatchesReference) {
  expect_gpu_matches_reference(f16_max_beside_pointwise_program,
                               "f16 max beside a pointwise output");
}

TEST_F(GpuFuzzRegressions, SumAndMaxOfOneRowBesidePointwiseOutputsFoldEveryElement) {
  auto program = [] {
    std::vector<Tensor> out;
    for (int n : {1025, 2049, 4097}) {
      std::vector<float> v(static_cast<std::size_t>(n), 1.0f), u(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) u[std::size_t(i)] = float(i % 1500) + 1;
      Tensor x = lazy::from_data(v, {n}), y = lazy::from_data(u, {n});
      out.push_back(lazy::max(y, {}, true));
      out.push_back(lazy::sum(y, {}, true));
      out.push_back(lazy::div(lazy::cast(lazy::silu(x), DType::f16), 10.0));
    }
    return out;
  };
  expect_gpu_matches_reference(program, "sum and max of one row beside a pointwise output");
}

TEST_F(GpuFuzzRegressions, BroadcastRowReductionBesideAnEpilogueMatchesReference) {
  expect_gpu_matches_reference(broadcast_row_reduction_program, "broadcast rows");
}

// lazyfuse-fuzz seed 11801 program 48, shrunk: a cast of -0.25 to bool stored as the C++ conversion
// of its operand (0) once stores of casts skipped the cast; only f16 and bf16 may.
TEST_F(GpuFuzzRegressions, FractionCastToBoolIsTrue) {
  expect_gpu_matches_reference(
      [] {
        const std::vector<float> values = {-0.25f, 0.5f, 0.0f, -0.0f, std::nanf("")};
        const Tensor x = lazy::from_data(values, {1, 1, 5}, DType::f32);
        return std::vector{lazy::cast(x, DType::bool_), lazy::cast(x * 4.0f, DType::i32)};
      },
      "fractions cast to bool and int");
}

// lazyfuse-fuzz seed 13102 program 523, shrunk: the reference's gelu_tanh(-7.36) was -0 (1 + tanh
// cancelled) where the kernel's is -2.6e-17, so -0 * -inf (NaN) in the reference met +inf on the
// GPU through an f32 product.
TEST_F(GpuFuzzRegressions, TinyGeluTanhTimesInfinityIsInfinite) {
  expect_gpu_matches_reference(
      [] {
        const Tensor x =
            lazy::from_data(std::vector<float>{-5.69189453125f, -22.2255859375f, -7.36474609375f},
                            {1, 1, 1, 3}, DType::f32);
        std::vector<float> w(18, 1.0f);
        w[16] = -std::numeric_limits<float>::infinity();
        const Tensor y = lazy::matmul(lazy::atan2(lazy::gelu_tanh(x), 1),
                                      lazy::from_data(w, {1, 1, 3, 6}, DType::f32));
        return std::vector{lazy::isinf(lazy::relu(y)), lazy::gelu_tanh(x)};
      },
      "gelu_tanh of -7.36 times -inf");
}

// torch_check, lazyfuse-fuzz seed 17662 program 50 (--steps 40): every step held, the row kernel
// kept fmod's values between its argmax fold and its stores, and ptxas 13.0 (sm_90) made a
// three-input max of the negated values that dropped the negation: argmax gave 4 where the first
// maximum of the stored neg was at 6. Its values, then the same chain on fresh values, with argmax,
// argmin, cummax and cummin of negated integers beside their operands.
TEST_F(GpuFuzzRegressions, ArgReductionsOfNegatedIntegersBesideTheirOperandsPickTheFirstExtreme) {
  using lazy::fuzz::fz_floats, lazy::fuzz::fz_ints;
  // gt(a, b), |c| + 1, fmod of the two and its negation, held, beside arg reductions of them.
  const auto chain = [](std::uint64_t a, std::uint64_t b, std::uint64_t c, std::int64_t n,
                        std::vector<Tensor>& out) {
    const Tensor gt =
        lazy::gt(lazy::from_data(fz_ints(a, n, -100, 100), Shape{n}, DType::i32),
                 lazy::from_data(fz_floats(b, n, 0.1, 5, -1, 0), Shape{n}, DType::bf16));
    const Tensor divisor =
        lazy::abs(lazy::from_data(fz_ints(c, n, 0, 222), Shape{n}, DType::i32)) + 1;
    const Tensor mod = lazy::fmod(gt, divisor);
    const Tensor neg = -mod;
    out.insert(out.end(), {gt, divisor, mod, neg, lazy::argmax(neg, std::nullopt, false),
                           lazy::argmin(-divisor, std::nullopt, false), lazy::cummax(neg, 0).values,
                           lazy::cummin(-divisor, 0).indices});
  };
  const std::uint64_t seed = lazy_test::fresh_seed();
  auto program = [&] {
    std::vector<Tensor> out;
    chain(0x86adba57cd14095cull, 0xfbfe5ec7ba7e1735ull, 0x5cd7acba81d7da1ull, 223, out);
    for (std::int64_t n : {223, 1000, 4099}) chain(seed, seed + 1, seed + 2, n, out);
    return out;
  };
  expect_gpu_matches_reference(program, "arg reductions of negated integers");
}

}  // namespace

// lazyfuse-fuzz seed 17061 program 1262, shrunk: ptxas (CUDA 13.0, sm_90) folds a negation into
// an operand of its three-input integer max/min and loses it, so max(-x) over an i32 row read
// some elements un-negated (997 for -1). Rows long enough for vector loads, and pointwise chains.
TEST_F(GpuFuzzRegressions, IntegerMaxAndMinOfNegatedValuesNegateEveryOperand) {
  std::mt19937_64 rng(lazy_test::fresh_seed());
  std::vector<std::vector<std::int32_t>> data;
  for (int n : {64, 196, 1000, 4096, 4 * 4096, 4 * 4096, 4 * 4096, 4 * 4096}) {
    data.emplace_back(static_cast<std::size_t>(n));
    for (std::int32_t& v : data.back()) v = std::int32_t(rng() % 2001) - 1000;
  }
  auto program = [&] {
    std::vector<Tensor> out;
    for (std::size_t k = 0; k < 4; ++k) {
      const auto n = std::int64_t(data[k].size());
      const Tensor x = lazy::from_data(data[k], {n}, DType::i32);
      const Tensor rows = lazy::from_data(data[k], {n / 4, 4}, DType::i32);
      out.push_back(lazy::max(-x, {}, true));
      out.push_back(lazy::min(-x, {}, true));
      out.push_back(lazy::max(-rows, -1));
    }
    Tensor a = lazy::from_data(data[4], {4096, 4}), b = lazy::from_data(data[5], {4096, 4});
    Tensor c = lazy::from_data(data[6], {4096, 4}), d = lazy::from_data(data[7], {4096, 4});
    out.push_back(lazy::maximum(lazy::maximum(lazy::maximum(a, -b), -c), -d));
    out.push_back(lazy::minimum(lazy::minimum(lazy::minimum(a, -b), -c), -d));
    return out;
  };
  expect_gpu_matches_reference(program, "max and min of negated i32");
}

// lazyfuse-fuzz seed 17117 program 852: the kernel storing x, x * y and |x * y| in bf16 stored
// x * y for |x * y|. The PTX held the abs; ptxas 13.0 (sm_90) lost it (one F2FP packed x and
// x * y, and both later stores took x * y), in f16 too. Abs and neg must apply beside the plain
// product in every floating dtype.
TEST_F(GpuFuzzRegressions, AbsAndNegOfAStoredProductStayApplied) {
  const std::uint64_t seed = lazy_test::fresh_seed();
  auto program = [&] {
    std::vector<Tensor> out;
    for (DType dtype : {DType::bf16, DType::f16, DType::f32}) {
      const Tensor x = lazy::randn({5, 2048}, seed, dtype);
      const Tensor y = lazy::randn({5, 2048}, seed + 1, dtype);
      const Tensor product = x * y;
      out.insert(out.end(), {x, product, lazy::abs(product), -product});
    }
    return out;
  };
  expect_gpu_matches_reference(program, "abs and neg of a stored product");
}
