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

// A program as the generator of its generation made it.
GradientOutcome check(std::uint64_t seed, std::int64_t index, int generation = 1) {
  return check_gradients(generate(seed, index, GenerateOptions{.generation = generation}));
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

// Programs whose check once went wrong, and whether it must now judge them (checked) or only not
// fail them (a skip is right).
struct Found {
  std::uint64_t seed;
  std::int64_t index;
  bool must_check;
  const char* what;
  int generation = 1;
};

TEST(FuzzGradients, ProgramsThatOnceFailedPass) {
  const Found found[] = {
      {1, 0, true,
       "softplus of values up to 100 had a NaN gradient, 0 * inf in the branch its threshold "
       "drops; its textbook rule (autodiff/composite_rules.h) is finite"},
      {1, 253, true, "the std of one element (zero) took a NaN gradient, inf * 0 in sqrt's rule"},
      {1, 171, false,
       "a sort of 170 values whose order changes inside the move: the one-sided differences "
       "agreed, the slope did not; two move sizes tell"},
      {31, 273, false, "a product of a batch with a size of 0 threw in its weight's gradient"},
      {17226, 2269, true,
       "on the GPU, a ceil of 1683 values, some of which jumped within the move, passed as "
       "smooth; rounding steps are now held at their values while the leaves move"},
      {17236, 261, true,
       "hypot(false, log_softmax of a scalar), a constant 0: hypot's rule divided by its zero "
       "result, NaN; it now gives 0 at the origin"},
      {17355, 1753, false,
       "a leaf added to a NaN (scatter_add of special data), then a max whose result an empty "
       "slice drops: max's rule, as PyTorch's amax, shares the gradient among the elements "
       "equal to the NaN result, none, so 0 / 0; gradients through NaN are not judged"},
      {17550, 46, true,
       "a cummin of 14049 near-equal values crossed kinks within the move, which one linear "
       "output's noise hid from the smoothness check; the short move's estimate now counts",
       3},
      {17738, 705, true,
       "a flip's diagonal of a product beside a gradient reading its input: the flipped "
       "cotangent, cut by a reshape in one planning pass, was cut again as the next product's "
       "operand in the same pass, an internal error",
       11},
  };
  for (const Found& f : found) {
    const GradientOutcome outcome = check(f.seed, f.index, f.generation);
    EXPECT_NE(outcome.kind, GradientOutcome::Kind::failed)
        << "seed " << f.seed << " program " << f.index << ": " << f.what << "\n"
        << outcome.detail;
    if (f.must_check) {
      EXPECT_EQ(outcome.kind, GradientOutcome::Kind::checked)
          << "seed " << f.seed << " program " << f.index << ": " << f.what << "\n"
          << outcome.detail;
    }
  }
}

// A shrunk candidate's derived size (a slice's length) is stale until the program records: the
// check's leaves take their shapes after a recording (a [2, 1] leaf stood where the recording made
// [2, 0], and the shrinking of seed 17738 program 705 aborted).
TEST(FuzzGradients, ALeafOfAStaleDerivedSizeTakesItsRecordedShape) {
  Program p;
  p.sizes = {SizeVar{4, false}, SizeVar{3, true}};
  Step x;
  x.shape = {Dim{{0}, 1}};
  x.data.key = 7;
  Step tail;
  tail.op = Op::slice;
  tail.args = {Arg{0}};
  tail.start = 1;
  tail.has_start = true;
  tail.derived_size = 1;
  Step y;
  y.shape = {Dim{{1}, 1}};
  y.data.key = 8;
  Step sum;
  sum.op = Op::binary;
  sum.name = "mul";
  sum.args = {Arg{1}, Arg{2}};
  sum.held = true;
  p.steps = {x, tail, y, sum};
  p.sizes[0].value = 2;  // as the shrinker lowers it: the slice's length is 1, not the 3 recorded
  EXPECT_EQ(check_gradients(p).kind, GradientOutcome::Kind::checked) << check_gradients(p).detail;
}

}  // namespace
