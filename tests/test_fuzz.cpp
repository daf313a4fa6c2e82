// The differential fuzzer (tools/fuzz/): its pieces, and a short run on the host that must find
// nothing (planning, codegen, NVRTC and the reference evaluator on random programs). On a GPU the
// same run also compares fused and unfused kernels with the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include <lazy/lazy.h>

#include "tools/fuzz/bounds.h"
#include "tools/fuzz/generator.h"
#include "tools/fuzz/printer.h"
#include "tools/fuzz/runner.h"
#include "tools/fuzz/session.h"
#include "tools/fuzz/shrinker.h"

namespace {

using namespace lazy::fuzz;
using ::testing::HasSubstr;

TEST(FuzzBounds, FitsKnowsEachDtypesSignificand) {
  EXPECT_TRUE(fits(lazy::DType::f16, -2048, 2048, 0));
  EXPECT_FALSE(fits(lazy::DType::f16, 0, 2049, 0));  // 2049 is not an f16
  EXPECT_TRUE(fits(lazy::DType::bf16, 0, 1.5, 1));
  EXPECT_FALSE(fits(lazy::DType::bf16, 0, 3, 7));  // 3 * 2^7 needs 9 bits
  EXPECT_TRUE(fits(lazy::DType::f32, 0, 3, 21));
  EXPECT_FALSE(fits(lazy::DType::f32, 0, 1, kNoQuantum));
  EXPECT_FALSE(fits(lazy::DType::i32, 0, 1, 1));  // halves are not integers
}

TEST(FuzzBounds, UlpIsTheSpacingAtAMagnitude) {
  EXPECT_EQ(ulp(lazy::DType::f32, 1.0), 0x1p-23);
  EXPECT_EQ(ulp(lazy::DType::f16, 1000.0), 0.5);
  EXPECT_EQ(ulp(lazy::DType::bf16, 1.0), 0x1p-7);
  EXPECT_EQ(ulp(lazy::DType::i64, 1e6), 0.0);
}

TEST(FuzzGenerator, TheSameSeedAndIndexGiveTheSameProgram) {
  std::vector<Program> a = {generate(42, 7, {})};
  std::vector<Program> b = {generate(42, 7, {})};
  std::vector<Program> c = {generate(42, 8, {})};
  EXPECT_EQ(print_program(a), print_program(b));
  EXPECT_NE(print_program(a), print_program(c));
}

TEST(FuzzPrinter, PrintsAStandaloneProgramThatHoldsTheOutputs) {
  std::vector<Program> programs = {generate(5, 3, {})};
  std::string source = print_program(programs);
  EXPECT_THAT(source, HasSubstr("#include <lazy/lazy.h>"));
  EXPECT_THAT(source, HasSubstr("inline std::vector<double> fz_floats"));
  EXPECT_THAT(source, HasSubstr("lazy::eval({"));
  EXPECT_THAT(source, HasSubstr("fz_show(\"p3_out"));
}

TEST(FuzzShrinker, KeepsOnlyWhatTheFailureNeeds) {
  // A made-up failure: any program holding an exp step. The shrinker must keep an exp and cut
  // or drop nearly everything else.
  Program program;
  for (std::int64_t index = 0; index < 200; ++index) {
    program = generate(11, index, {});
    int exps = 0;
    for (const Step& s : program.steps) exps += s.op == Op::unary && s.name == "exp";
    if (exps > 0 && program.steps.size() >= 6) break;
  }
  auto holds_exp = [](std::vector<Program>& candidate) {
    for (const Program& p : candidate)
      for (const Step& s : p.steps)
        if (s.op == Op::unary && s.name == "exp") return true;
    return false;
  };
  std::size_t before = program.steps.size();
  std::vector<Program> small = shrink({program}, holds_exp, 200);
  ASSERT_EQ(small.size(), 1u);
  EXPECT_TRUE(holds_exp(small));
  EXPECT_LE(small[0].steps.size(), 2u) << "from " << before << " steps";
}

TEST(FuzzShrinker, DeadStepsAreRemovedAndArgumentsRenumbered) {
  Program p;
  p.sizes = {SizeVar{3, false}};
  Step leaf;
  leaf.op = Op::data;
  leaf.shape = {Dim{{0}, 1}};
  Step unused = leaf;
  Step neg;
  neg.op = Op::unary;
  neg.name = "neg";
  neg.args = {Arg{1}};
  neg.held = true;
  p.steps = {unused, leaf, neg};
  Program q = without_dead_steps(p);
  ASSERT_EQ(q.steps.size(), 2u);
  EXPECT_EQ(q.steps[1].args[0].step, 0);
}

// On the host every mode runs the reference evaluator after planning as for a GPU; on a GPU
// this is the fused and unfused comparison. LAZY_FUZZ_SEED picks another seed.
TEST(FuzzSession, RandomProgramsAgreeWithTheReference) {
  SessionOptions options;
  const char* seed = std::getenv("LAZY_FUZZ_SEED");
  options.seed = seed != nullptr ? std::strtoull(seed, nullptr, 10) : 20261123;
  options.count = 24;
  options.max_shrink_runs = 60;
  std::ostringstream log;
  SessionSummary summary = run_session(options, log);
  EXPECT_EQ(summary.programs, options.count);
  EXPECT_GT(summary.compared, 0);
  EXPECT_EQ(summary.failures, 0) << log.str();
}

}  // namespace
