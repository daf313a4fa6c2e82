// The fuzzer's later generations (tools/fuzz/generator.h): each one's new steps are generated,
// agree with the reference on whatever backend runs, and print as the API calls them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "tools/fuzz/activation_rules.h"
#include "tools/fuzz/generator.h"
#include "tools/fuzz/guard_rules.h"
#include "tools/fuzz/printer.h"
#include "tools/fuzz/runner.h"

namespace {

using namespace lazy::fuzz;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

// What a step is, for a generation's test: the names it counts (none: not one of its steps).
using Labels = std::function<std::vector<std::string>(const Step&)>;

struct Sample {
  std::set<std::string> seen;     // every label met
  std::vector<Program> programs;  // the first `keep` programs holding a labelled step
};

// Programs of `generation` from `seed`, up to `count` of them or until `enough` labels are seen.
Sample sample(int generation, std::uint64_t seed, std::int64_t count, std::size_t keep,
              const Labels& labels, std::size_t enough = std::numeric_limits<std::size_t>::max()) {
  Sample out;
  GenerateOptions options;
  options.generation = generation;
  for (std::int64_t index = 0; index < count && out.seen.size() < enough; ++index) {
    Program p = generate(seed, index, options);
    bool has = false;
    for (const Step& s : p.steps) {
      for (std::string& label : labels(s)) {
        out.seen.insert(std::move(label));
        has = true;
      }
    }
    if (has && out.programs.size() < keep) out.programs.push_back(std::move(p));
  }
  return out;
}

// Each of `names` was seen, and the sampled programs record and agree with the reference;
// returns their printed source.
std::string expect_generated_and_agreeing(Sample& s, const std::vector<std::string>& names) {
  for (const std::string& name : names)
    EXPECT_TRUE(s.seen.count(name)) << name << " never generated";
  if (s.programs.empty()) {
    ADD_FAILURE() << "no program holds the steps";
    return "";
  }
  const RunReport report = run_programs(s.programs);
  EXPECT_FALSE(report.invalid.has_value());
  EXPECT_TRUE(report.failures.empty()) << report.failures.front().detail;
  EXPECT_GT(report.compared, 0);
  return print_program(s.programs);
}

std::string loss_name(const Step& s) {
  return s.name.substr(0, s.name.find('.'));
}

// Generation 8's activations and losses.
TEST(FuzzGenerator, ActivationAndLossStepsAreGeneratedAndAgree) {
  Sample s = sample(8, 13, 400, 10, [](const Step& step) -> std::vector<std::string> {
    if (step.op == Op::unary && is_activation(step.name)) return {"activation " + step.name};
    if (step.op == Op::loss) return {loss_name(step)};
    return {};
  });
  const std::string source = expect_generated_and_agreeing(
      s, {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy_with_logits",
          "kl_div", "kl_div_log_target"});
  EXPECT_GE(std::count_if(s.seen.begin(), s.seen.end(),
                          [](const std::string& n) { return n.starts_with("activation "); }),
            12)
      << "too few of the 14 activations generated";
  EXPECT_THAT(source, ContainsRegex("lazy::[a-z_0-9]+_loss\\(p[0-9]+_t[0-9]+, p[0-9]+_t[0-9]+, "
                                    "lazy::Reduction::[a-z]+\\)"));
}

// Generation 9's strided views, statistics and class losses.
TEST(FuzzGenerator, StridedViewsStatisticsAndClassLossesAreGeneratedAndAgree) {
  Sample s = sample(
      9, 29, 600, 12,
      [](const Step& step) -> std::vector<std::string> {
        if (step.op == Op::strided_view || step.op == Op::statistic) return {step.name};
        const bool class_loss = step.op == Op::loss && (step.name.starts_with("cross_entropy") ||
                                                        step.name.starts_with("nll"));
        if (class_loss) return {loss_name(step)};
        return {};
      },
      13);
  EXPECT_THAT(expect_generated_and_agreeing(
                  s, {"flip", "diagonal", "narrow", "chunk", "split", "unbind", "nansum", "nanmean",
                      "count_nonzero", "vector_norm", "cross_entropy",
                      "cross_entropy_probabilities", "nll_loss"}),
              ContainsRegex("lazy::(flip|diagonal|narrow|chunk|split|unbind|nansum|nanmean|"
                            "count_nonzero|vector_norm|cross_entropy|nll_loss)\\(p"));
}

// Generation 10's domain guards and row ops print with the parameters their rules assume.
TEST(FuzzGenerator, DomainGuardsAndRowOpsAreGeneratedAndAgree) {
  Sample s = sample(
      10, 31, 600, 12,
      [](const Step& step) -> std::vector<std::string> {
        if (step.op == Op::row_op || (step.op == Op::unary && is_domain_guard(step.name)))
          return {step.name};
        return {};
      },
      6);
  const std::string source = expect_generated_and_agreeing(
      s, {"logit", "nan_to_num", "threshold", "glu", "normalize", "cosine_similarity"});
  EXPECT_THAT(source, ContainsRegex("lazy::(glu|normalize|cosine_similarity)\\(p"));
  // Each guard prints the parameters its rule assumes (logit's eps has no default to lean on).
  EXPECT_THAT(source, Not(ContainsRegex("lazy::(logit|threshold)\\(p[0-9]+_t[0-9]+\\)")));
}

// Generation 11's pairs, one-hot encodings, trace and binary_cross_entropy.
TEST(FuzzGenerator, PairsOneHotTraceAndBinaryCrossEntropyAreGeneratedAndAgree) {
  Sample s = sample(
      11, 37, 800, 12,
      [](const Step& step) -> std::vector<std::string> {
        if (step.op == Op::pair || step.op == Op::one_hot) return {step.name};
        if (step.op == Op::statistic && step.name == "trace") return {step.name};
        if (step.op == Op::loss && loss_name(step) == "binary_cross_entropy") return {"bce"};
        return {};
      },
      6);
  const std::string source = expect_generated_and_agreeing(
      s, {"isclose", "pairwise_distance", "outer", "one_hot", "trace", "bce"});
  EXPECT_THAT(source, ContainsRegex("lazy::(isclose|pairwise_distance|outer|one_hot|trace|"
                                    "binary_cross_entropy)\\(p"));
  // isclose and pairwise_distance print their tolerances and order; one_hot its class count.
  EXPECT_THAT(source, Not(ContainsRegex("lazy::(isclose|pairwise_distance|one_hot)\\(p[0-9]+_t"
                                        "[0-9]+(, p[0-9]+_t[0-9]+)?\\)")));
}

// Generation 12's loss weights print as the API takes them.
TEST(FuzzGenerator, LossWeightsAreGeneratedAndAgree) {
  Sample s = sample(
      12, 41, 1500, 12,
      [](const Step& step) {
        std::vector<std::string> names;
        if (step.op != Op::loss) return names;
        if (step.weight_arg >= 0) names.push_back(loss_name(step) + " weight");
        if (step.pos_weight_arg >= 0) names.push_back(loss_name(step) + " pos_weight");
        return names;
      },
      5);
  const std::string source = expect_generated_and_agreeing(
      s,
      {"cross_entropy weight", "nll_loss weight", "binary_cross_entropy weight",
       "binary_cross_entropy_with_logits weight", "binary_cross_entropy_with_logits pos_weight"});
  EXPECT_THAT(source, HasSubstr("lazy::CrossEntropyOptions{.weight = p"));
  EXPECT_THAT(source, ContainsRegex("lazy::binary_cross_entropy_with_logits\\(p[0-9]+_t[0-9]+, "
                                    "p[0-9]+_t[0-9]+, [a-z:()A-Z0-9_]+, lazy::Reduction::[a-z]+, "
                                    "p[0-9]+_t[0-9]+\\)"));
}

}  // namespace
