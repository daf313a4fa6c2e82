// The fuzzer's later generations (tools/fuzz/generator.h): each one's new steps are generated,
// agree with the reference on whatever backend runs, and print as the API calls them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

// Generation 8's activations and losses record, agree with the reference, and print as the API
// calls them.
TEST(FuzzGenerator, ActivationAndLossStepsAreGeneratedAndAgree) {
  std::set<std::string> activations, losses;
  std::vector<Program> picked;
  GenerateOptions eighth;
  eighth.generation = 8;
  for (std::int64_t index = 0; index < 400; ++index) {
    Program p = generate(13, index, eighth);
    bool has = false;
    for (const Step& s : p.steps) {
      if (s.op == Op::unary && is_activation(s.name)) activations.insert(s.name);
      if (s.op == Op::loss) losses.insert(s.name.substr(0, s.name.find('.')));
      has = has || s.op == Op::loss || (s.op == Op::unary && is_activation(s.name));
    }
    if (has && picked.size() < 10) picked.push_back(std::move(p));
  }
  for (const char* loss : {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                           "binary_cross_entropy_with_logits", "kl_div", "kl_div_log_target"})
    EXPECT_TRUE(losses.count(loss)) << loss << " never generated";
  EXPECT_GE(activations.size(), 12u) << "too few of the 14 activations generated";
  ASSERT_FALSE(picked.empty());
  const std::string source = print_program(picked);
  EXPECT_THAT(source, ::testing::ContainsRegex("lazy::[a-z_0-9]+_loss\\(p[0-9]+_t[0-9]+, "
                                               "p[0-9]+_t[0-9]+, lazy::Reduction::[a-z]+\\)"));
  const RunReport report = run_programs(picked);
  EXPECT_FALSE(report.invalid.has_value());
  EXPECT_TRUE(report.failures.empty()) << report.failures.front().detail;
  EXPECT_GT(report.compared, 0);
}

// Generation 9's strided views, statistics and class losses record, agree with the reference,
// and print as the API calls them.
TEST(FuzzGenerator, StridedViewsStatisticsAndClassLossesAreGeneratedAndAgree) {
  std::set<std::string> seen;
  std::vector<Program> picked;
  const auto is_new = [](const Step& s) {
    return s.op == Op::strided_view || s.op == Op::statistic ||
           (s.op == Op::loss && (s.name.starts_with("cross_entropy") || s.name.starts_with("nll")));
  };
  GenerateOptions ninth;
  ninth.generation = 9;
  for (std::int64_t index = 0; index < 600 && seen.size() < 13; ++index) {
    Program p = generate(29, index, ninth);
    bool has = false;
    for (const Step& s : p.steps) {
      if (!is_new(s)) continue;
      seen.insert(s.op == Op::loss ? s.name.substr(0, s.name.find('.')) : s.name);
      has = true;
    }
    if (has && picked.size() < 12) picked.push_back(std::move(p));
  }
  for (const char* name :
       {"flip", "diagonal", "narrow", "chunk", "split", "unbind", "nansum", "nanmean",
        "count_nonzero", "vector_norm", "cross_entropy", "cross_entropy_probabilities", "nll_loss"})
    EXPECT_TRUE(seen.count(name)) << name << " never generated";
  ASSERT_FALSE(picked.empty());
  EXPECT_THAT(print_program(picked),
              ::testing::ContainsRegex("lazy::(flip|diagonal|narrow|chunk|split|unbind|nansum|"
                                       "nanmean|count_nonzero|vector_norm|cross_entropy|nll_loss)"
                                       "\\(p"));
  const RunReport report = run_programs(picked);
  EXPECT_FALSE(report.invalid.has_value());
  EXPECT_TRUE(report.failures.empty()) << report.failures.front().detail;
  EXPECT_GT(report.compared, 0);
}

// Generation 10's domain guards and row ops record, agree with the reference, and print with the
// parameters their rules assume.
TEST(FuzzGenerator, DomainGuardsAndRowOpsAreGeneratedAndAgree) {
  std::set<std::string> seen;
  std::vector<Program> picked;
  GenerateOptions tenth;
  tenth.generation = 10;
  for (std::int64_t index = 0; index < 600 && seen.size() < 6; ++index) {
    Program p = generate(31, index, tenth);
    bool has = false;
    for (const Step& s : p.steps) {
      if (s.op != Op::row_op && !(s.op == Op::unary && is_domain_guard(s.name))) continue;
      seen.insert(s.name);
      has = true;
    }
    if (has && picked.size() < 12) picked.push_back(std::move(p));
  }
  for (const char* name :
       {"logit", "nan_to_num", "threshold", "glu", "normalize", "cosine_similarity"})
    EXPECT_TRUE(seen.count(name)) << name << " never generated";
  ASSERT_FALSE(picked.empty());
  const std::string source = print_program(picked);
  EXPECT_THAT(source, ::testing::ContainsRegex("lazy::(glu|normalize|cosine_similarity)\\(p"));
  // Each guard prints the parameters its rule assumes (logit's eps has no default to lean on).
  EXPECT_THAT(source, ::testing::Not(::testing::ContainsRegex("lazy::(logit|threshold)\\(p[0-9]+_t"
                                                              "[0-9]+\\)")));
  const RunReport report = run_programs(picked);
  EXPECT_FALSE(report.invalid.has_value());
  EXPECT_TRUE(report.failures.empty()) << report.failures.front().detail;
  EXPECT_GT(report.compared, 0);
}

// Generation 11's pairs, one-hot encodings, trace and binary_cross_entropy record, agree with the
// reference, and print with the parameters their rules assume.
TEST(FuzzGenerator, PairsOneHotTraceAndBinaryCrossEntropyAreGeneratedAndAgree) {
  std::set<std::string> seen;
  std::vector<Program> picked;
  const auto label = [](const Step& s) -> std::string {
    if (s.op == Op::pair || s.op == Op::one_hot) return s.name;
    if (s.op == Op::statistic && s.name == "trace") return s.name;
    if (s.op == Op::loss && s.name.starts_with("binary_cross_entropy."))
      return "binary_cross_entropy";
    return "";
  };
  GenerateOptions eleventh;
  eleventh.generation = 11;
  for (std::int64_t index = 0; index < 800 && seen.size() < 6; ++index) {
    Program p = generate(37, index, eleventh);
    bool has = false;
    for (const Step& s : p.steps) {
      const std::string name = label(s);
      if (name.empty()) continue;
      seen.insert(name);
      has = true;
    }
    if (has && picked.size() < 12) picked.push_back(std::move(p));
  }
  for (const char* name :
       {"isclose", "pairwise_distance", "outer", "one_hot", "trace", "binary_cross_entropy"})
    EXPECT_TRUE(seen.count(name)) << name << " never generated";
  ASSERT_FALSE(picked.empty());
  const std::string source = print_program(picked);
  EXPECT_THAT(source, ::testing::ContainsRegex("lazy::(isclose|pairwise_distance|outer|one_hot|"
                                               "trace|binary_cross_entropy)\\(p"));
  // isclose and pairwise_distance print their tolerances and order; one_hot its class count.
  EXPECT_THAT(source, ::testing::Not(::testing::ContainsRegex(
                          "lazy::(isclose|pairwise_distance|one_hot)\\(p[0-9]+_t[0-9]+(, "
                          "p[0-9]+_t[0-9]+)?\\)")));
  const RunReport report = run_programs(picked);
  EXPECT_FALSE(report.invalid.has_value());
  EXPECT_TRUE(report.failures.empty()) << report.failures.front().detail;
  EXPECT_GT(report.compared, 0);
}

// Generation 12's loss weights record, agree with the reference, and print as the API takes them.
TEST(FuzzGenerator, LossWeightsAreGeneratedAndAgree) {
  std::set<std::string> seen;
  std::vector<Program> picked;
  GenerateOptions twelfth;
  twelfth.generation = 12;
  for (std::int64_t index = 0; index < 1500 && seen.size() < 5; ++index) {
    Program p = generate(41, index, twelfth);
    bool has = false;
    for (const Step& s : p.steps) {
      if (s.op != Op::loss) continue;
      const std::string loss = s.name.substr(0, s.name.find('.'));
      if (s.weight_arg >= 0) seen.insert(loss + " weight");
      if (s.pos_weight_arg >= 0) seen.insert(loss + " pos_weight");
      has = has || s.weight_arg >= 0 || s.pos_weight_arg >= 0;
    }
    if (has && picked.size() < 12) picked.push_back(std::move(p));
  }
  for (const char* name :
       {"cross_entropy weight", "nll_loss weight", "binary_cross_entropy weight",
        "binary_cross_entropy_with_logits weight", "binary_cross_entropy_with_logits pos_weight"})
    EXPECT_TRUE(seen.count(name)) << name << " never generated";
  ASSERT_FALSE(picked.empty());
  const std::string source = print_program(picked);
  EXPECT_THAT(source, ::testing::HasSubstr("lazy::CrossEntropyOptions{.weight = p"));
  EXPECT_THAT(source, ::testing::ContainsRegex("lazy::binary_cross_entropy_with_logits\\(p[0-9]+_t"
                                               "[0-9]+, p[0-9]+_t[0-9]+, [a-z:()A-Z0-9_]+, "
                                               "lazy::Reduction::[a-z]+, p[0-9]+_t[0-9]+\\)"));
  const RunReport report = run_programs(picked);
  EXPECT_FALSE(report.invalid.has_value());
  EXPECT_TRUE(report.failures.empty()) << report.failures.front().detail;
  EXPECT_GT(report.compared, 0);
}

}  // namespace
