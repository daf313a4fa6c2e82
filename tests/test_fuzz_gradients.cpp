// The fuzzer's gradient check (tools/fuzz/gradient_check.h): a short session that must find
// nothing, and the programs whose checks found a bug or misjudged a kink.
#include <cstdlib>
#include <sstream>

#include <gtest/gtest.h>

#include "tools/fuzz/generator.h"
#include "tools/fuzz/gradient_check.h"
#include "tools/fuzz/session.h"

namespace {

using namespace lazy::fuzz;

GradientOutcome check(std::uint64_t seed, std::int64_t index) {
  return check_gradients(generate(seed, index, GenerateOptions{}));
}

// LAZY_FUZZ_SEED picks another seed.
TEST(FuzzGradients, RandomProgramsGradientsMatchCentralDifferences) {
  SessionOptions options;
  const char* seed = std::getenv("LAZY_FUZZ_SEED");
  options.seed = seed != nullptr ? std::strtoull(seed, nullptr, 10) : 20261125;
  options.count = 40;
  options.gradients = true;
  options.max_shrink_runs = 40;
  std::ostringstream log;
  const SessionSummary summary = run_session(options, log);
  EXPECT_EQ(summary.programs, options.count);
  EXPECT_GT(summary.gradients_checked, options.count / 2);
  EXPECT_EQ(summary.failures, 0) << log.str();
}

// Seed 1 program 0: softplus of values up to 100 had a NaN gradient, 0 * inf in the branch its
// threshold drops; its textbook rule (autodiff/composite_rules.h) is finite.
TEST(FuzzGradients, SoftplusOfLargeValuesIsCheckedAndPasses) {
  const GradientOutcome outcome = check(1, 0);
  EXPECT_EQ(outcome.kind, GradientOutcome::Kind::checked) << outcome.detail;
}

// Seed 1 program 253: the std of one element (zero) took a NaN gradient, inf * 0 in sqrt's rule.
TEST(FuzzGradients, TheStdOfEqualElementsIsCheckedAndPasses) {
  const GradientOutcome outcome = check(1, 253);
  EXPECT_EQ(outcome.kind, GradientOutcome::Kind::checked) << outcome.detail;
}

// Seed 1 program 171: a sort of 170 values, whose order changes inside a move of 1e-3 of the
// range; the one-sided differences agreed, the slope did not. Two move sizes tell.
TEST(FuzzGradients, ASortWhoseOrderChangesInsideTheMoveIsNotFailed) {
  const GradientOutcome outcome = check(1, 171);
  EXPECT_NE(outcome.kind, GradientOutcome::Kind::failed) << outcome.detail;
}

// Seed 31 program 273: a product of a batch with a size of 0 threw in its weight's gradient.
TEST(FuzzGradients, AProductWithAnEmptyAxisIsChecked) {
  const GradientOutcome outcome = check(31, 273);
  EXPECT_NE(outcome.kind, GradientOutcome::Kind::failed) << outcome.detail;
}

// Seed 17226 program 2269 (on the GPU): a ceil of 1683 values, some of which jumped within the
// move, yet the two move sizes' differences agreed within the noise; rounding steps are now held
// at their values while the leaves move, so the check judges the gradient.
TEST(FuzzGradients, RoundingStepsAreHeldWhileTheLeavesMove) {
  const GradientOutcome outcome = check(17226, 2269);
  EXPECT_EQ(outcome.kind, GradientOutcome::Kind::checked) << outcome.detail;
}

}  // namespace
