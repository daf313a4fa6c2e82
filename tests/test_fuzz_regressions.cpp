// Regression tests for what a random-program tester found (issue 11): each bug's shrunk program,
// checked without a GPU where the bug shows in the plan or the generated source, and run on the
// GPU (fused and unfused, outputs poisoned) against the reference evaluator.
#include <bit>
#include <cmath>
#include <functional>
#include <string>

#include "codegen/iteration_space.h"
#include "codegen/term_statements.h"
#include "codegen_test_support.h"
#include "fuzz_reproducers.h"
#include "gpu_test_support.h"
#include "ir/dtype_codec.h"
#include "ir/trace.h"
#include "ref/evaluator.h"

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

// On the GPU: every output of `program`, fused and unfused, against the reference evaluator.
// The tolerances allow f16 and bf16 chains kept in f32 inside kernels (the reference rounds each
// op); the bugs they guard against are wrong by far more (0 for 1, NaN, lost contexts).
void expect_gpu_matches_reference(const Program& program, const std::string& what) {
  auto tolerance = [](DType dtype) {
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
                              tolerance(got[k].dtype()), run + " output " + std::to_string(k));
    }
  }
  lazy::set_fusion_enabled(true);
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

}  // namespace
