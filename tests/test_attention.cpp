// lazy::scaled_dot_product_attention against its definition computed here in double: masks of
// both kinds, causal masks of every aspect, rows that attend nowhere, grouped heads, dropout,
// gradients, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "error_test_support.h"
#include "gradient_test_support.h"
#include "ir/trace.h"
#include "matmul_test_support.h"

namespace {

using namespace lazy_test;  // NOLINT: the shared test helpers

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();

// One case over q [B, H, L, E], k [B, Hk, S, E], v [B, Hk, S, Ev]; `mask` is [L, S] (added, or
// -inf where not attended), broadcast over batch and heads.
struct Case {
  std::string name;
  std::int64_t b, h, hk, l, s, e, ev;
  std::vector<double> mask;  // empty: none
  bool bool_mask = false, causal = false;
  std::optional<double> scale;
  std::int64_t hv = 0;            // value's heads; 0: key's
  DType mask_dtype = DType::f32;  // of a float mask; the query's where f32 is not wanted
  std::int64_t value_heads() const { return hv > 0 ? hv : hk; }
};

// The output softmax(q k^T * scale + mask) v, rows attending nowhere 0, and per element the sum
// of p_j |v_j| that a rounding error scales with.
Expected attention(const Case& c, const HostTensor& q, const HostTensor& k, const HostTensor& v) {
  Expected out;
  out.shape = {c.b, c.h, c.l, c.ev};
  out.values.assign(std::size_t(out.shape.numel()), 0.0);
  out.scale.assign(out.values.size(), 0.0);
  const double scale = c.scale.value_or(1.0 / std::sqrt(double(c.e)));
  for (std::int64_t b = 0; b < c.b; ++b) {
    for (std::int64_t h = 0; h < c.h; ++h) {
      const std::int64_t kh = h / (c.h / c.hk), vh = h / (c.h / c.value_heads());
      for (std::int64_t i = 0; i < c.l; ++i) {
        std::vector<double> score(std::size_t(c.s));
        double top = -kInf;
        for (std::int64_t j = 0; j < c.s; ++j) {
          double dot = 0;
          for (std::int64_t e = 0; e < c.e; ++e)
            dot += q.values[std::size_t(((b * c.h + h) * c.l + i) * c.e + e)] *
                   k.values[std::size_t(((b * c.hk + kh) * c.s + j) * c.e + e)];
          double added = c.mask.empty() ? 0.0 : c.mask[std::size_t(i * c.s + j)];
          if (c.causal && j > i) added = -kInf;
          score[std::size_t(j)] = dot * scale + added;
          top = std::max(top, score[std::size_t(j)]);
        }
        if (top == -kInf) continue;  // attends nowhere: zeros
        double total = 0;
        for (double& x : score) total += (x = std::exp(x - top));
        for (std::int64_t e = 0; e < c.ev; ++e) {
          const std::size_t at = std::size_t(((b * c.h + h) * c.l + i) * c.ev + e);
          for (std::int64_t j = 0; j < c.s; ++j) {
            const double term =
                score[std::size_t(j)] / total *
                v.values[std::size_t(((b * c.value_heads() + vh) * c.s + j) * c.ev + e)];
            out.values[at] += term;
            out.scale[at] += std::abs(term);
          }
        }
      }
    }
  }
  return out;
}

Tensor mask_tensor(const Case& c, DType dtype) {
  const Shape shape{c.l, c.s};
  if (!c.bool_mask)
    return lazy::from_data(c.mask, shape, c.mask_dtype == DType::f32 ? DType::f32 : dtype);
  std::vector<bool> attend;
  for (double m : c.mask) attend.push_back(m == 0);
  return lazy::from_data(attend, shape);
}

// A [L, S] mask: -inf where (i + j) % 3 == 0, else 0 or a small bias; row `empty` all -inf.
std::vector<double> pattern(std::int64_t l, std::int64_t s, bool bias, std::int64_t empty) {
  std::vector<double> mask;
  for (std::int64_t i = 0; i < l; ++i)
    for (std::int64_t j = 0; j < s; ++j)
      mask.push_back(i == empty || (i + j) % 3 == 0 ? -kInf : bias ? 0.25 * double(j % 4) : 0.0);
  return mask;
}

double tolerance(DType dtype) {
  return dtype == lazy::f32 ? 1e-5 : dtype == lazy::f16 ? 1e-2 : 5e-2;
}

TEST(ScaledDotProductAttention, MatchesItsDefinition) {
  const Case cases[] = {
      {"no mask", 2, 3, 3, 5, 7, 8, 6, {}},
      {"bool mask, a row attending nowhere", 2, 2, 2, 6, 5, 4, 3, pattern(6, 5, false, 2), true},
      {"float mask, a row of -inf", 1, 2, 2, 4, 6, 8, 8, pattern(4, 6, true, 1)},
      {"causal, L < S", 2, 2, 2, 3, 6, 4, 4, {}, false, true},
      {"causal, L > S", 1, 2, 2, 7, 4, 4, 5, {}, false, true},
      {"explicit scale", 1, 1, 1, 4, 4, 16, 4, {}, false, false, 0.3},
      {"grouped heads", 2, 6, 2, 4, 5, 8, 4, {}},
      {"grouped heads, causal", 1, 4, 1, 5, 5, 4, 4, {}, false, true},
      {"grouped heads, fewer for value", 1, 8, 4, 3, 5, 4, 3, {}, false, false, {}, 2},
      {"grouped heads, fewer for key", 1, 8, 2, 3, 5, 4, 3, {}, false, true, {}, 4},
      {"float mask of the query's dtype",
       1,
       2,
       2,
       4,
       5,
       4,
       4,
       pattern(4, 5, true, -1),
       false,
       false,
       {},
       0,
       DType::f16},
  };
  for (const DType dtype : kFloatingDTypes) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name + " " + std::string(lazy::dtype_name(dtype)));
      HostTensor q = random_tensor({c.b, c.h, c.l, c.e}, dtype, 1);
      HostTensor k = random_tensor({c.b, c.hk, c.s, c.e}, dtype, 2);
      HostTensor v = random_tensor({c.b, c.value_heads(), c.s, c.ev}, dtype, 3);
      std::optional<Tensor> mask;
      if (!c.mask.empty()) mask = mask_tensor(c, dtype);
      const Tensor got = lazy::scaled_dot_product_attention(q.tensor, k.tensor, v.tensor, mask, 0,
                                                            c.causal, c.scale, c.h != c.hk);
      const Expected want = attention(c, q, k, v);
      ASSERT_EQ(got.shape(), want.shape);
      EXPECT_EQ(got.dtype(), dtype);
      const std::vector<double> values = got.to_vector<double>();
      for (std::size_t i = 0; i < values.size(); ++i) {
        EXPECT_NEAR(values[i], want.values[i], tolerance(dtype) * want.scale[i] + 1e-6)
            << "element " << i;
      }
    }
  }
}

TEST(ScaledDotProductAttention, ARowThatAttendsNowhereIsZerosNotNaN) {
  HostTensor q = random_tensor({1, 3, 4}, lazy::f32, 4), k = random_tensor({1, 5, 4}, lazy::f32, 5);
  HostTensor v = random_tensor({1, 5, 2}, lazy::f32, 6);
  std::vector<bool> attend(15, true);
  for (int j = 0; j < 5; ++j) attend[std::size_t(5 + j)] = false;  // row 1
  const Tensor mask = lazy::from_data(attend, {3, 5});
  const std::vector<float> out =
      lazy::scaled_dot_product_attention(q.tensor, k.tensor, v.tensor, mask).to_vector<float>();
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_EQ(out[3], 0.0f);
  EXPECT_FALSE(std::isnan(out[0]) || std::isnan(out[4]));
}

// No keys give zeros, and no depth scores of 0 whatever the scale (the mean of the values), as
// PyTorch's, which scales q and k before their product.
TEST(ScaledDotProductAttention, NoKeysGiveZerosAndNoDepthTheMeanOfTheValues) {
  HostTensor q = random_tensor({2, 3, 4}, lazy::f32, 16);
  const Tensor none =
      lazy::scaled_dot_product_attention(q.tensor, lazy::ones({2, 0, 4}), lazy::ones({2, 0, 5}));
  EXPECT_EQ(none.shape(), (Shape{2, 3, 5}));
  EXPECT_EQ(none.to_vector<float>(), std::vector<float>(30, 0.0f));
  const Tensor no_heads =
      lazy::scaled_dot_product_attention(lazy::ones({1, 0, 3, 4}), lazy::ones({1, 0, 5, 4}),
                                         lazy::ones({1, 0, 5, 2}), {}, 0.0, false, {}, true);
  EXPECT_EQ(no_heads.shape(), (Shape{1, 0, 3, 2}));
  HostTensor v = random_tensor({1, 4, 2}, lazy::f32, 17);
  const std::vector<double> mean =
      lazy::scaled_dot_product_attention(lazy::ones({1, 3, 0}), lazy::ones({1, 4, 0}), v.tensor)
          .to_vector<double>();
  ASSERT_EQ(mean.size(), 6u);
  for (std::size_t i = 0; i < mean.size(); ++i) {
    const std::size_t e = i % 2;
    const double want = (v.values[e] + v.values[2 + e] + v.values[4 + e] + v.values[6 + e]) / 4;
    EXPECT_NEAR(mean[i], want, 1e-6) << i;
  }
}

TEST(ScaledDotProductAttention, DropsWeightsAsDropoutDoesWithTheSeed) {
  HostTensor q = random_tensor({2, 4, 8}, lazy::f32, 7), k = random_tensor({2, 6, 8}, lazy::f32, 8);
  HostTensor v = random_tensor({2, 6, 3}, lazy::f32, 9);
  const Tensor weights =
      lazy::softmax(lazy::matmul(q.tensor, k.tensor.transpose(1, 2)) / std::sqrt(8.0), -1);
  const std::vector<double> want =
      lazy::matmul(lazy::dropout(weights, 0.5, 42), v.tensor).to_vector<double>();
  const std::vector<double> got = lazy::scaled_dot_product_attention(q.tensor, k.tensor, v.tensor,
                                                                     {}, 0.5, false, {}, false, 42)
                                      .to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  const std::vector<float> dropped =
      lazy::scaled_dot_product_attention(q.tensor, k.tensor, v.tensor, {}, 1.0, false, {}, false, 1)
          .to_vector<float>();
  EXPECT_EQ(dropped, std::vector<float>(dropped.size(), 0.0f));
}

TEST(ScaledDotProductAttention, GradientsMatchDifferences) {
  std::vector<bool> attend;
  for (int i = 0; i < 12; ++i) attend.push_back(i % 5 != 0);
  const Tensor mask = lazy::from_data(attend, {3, 4});
  expect_gradients_match(
      [&](auto t) { return lazy::scaled_dot_product_attention(t[0], t[1], t[2], mask); },
      {input({2, 3, 4}, 10), input({2, 4, 4}, 11), input({2, 4, 3}, 12)}, "bool mask");
  expect_gradients_match(
      [&](auto t) {
        return lazy::scaled_dot_product_attention(t[0], t[1], t[2], {}, 0, true, {}, true);
      },
      {input({1, 4, 3, 2}, 13), input({1, 2, 3, 2}, 14), input({1, 2, 3, 2}, 15)},
      "causal, grouped heads");
  expect_gradients_match(
      [&](auto t) {
        return lazy::scaled_dot_product_attention(t[0], t[1], t[2], {}, 0, false, {}, true);
      },
      {input({4, 2, 3}, 19), input({1, 3, 3}, 20), input({2, 3, 2}, 21)},
      "key and value heads grouped apart");
  // A row that attends nowhere is 0, and so are the gradients through it.
  std::vector<bool> row_masked(12, true);
  for (int j = 0; j < 4; ++j) row_masked[std::size_t(4 + j)] = false;
  const Tensor nowhere = lazy::from_data(row_masked, {3, 4});
  expect_gradients_match(
      [&](auto t) { return lazy::scaled_dot_product_attention(t[0], t[1], t[2], nowhere); },
      {input({2, 3, 4}, 16), input({2, 4, 4}, 17), input({2, 4, 3}, 18)}, "a row masked out");
}

TEST(ScaledDotProductAttention, RefusesBadInputAtTheUsersLineWithNothingRecorded) {
  const Tensor q = lazy::ones({2, 3, 4}), k = lazy::ones({2, 5, 4}), v = lazy::ones({2, 5, 6});
  const Tensor k_f16 = k.to(lazy::f16), k_short = lazy::ones({2, 5, 3});
  const Tensor v_short = lazy::ones({2, 4, 6}), vector = lazy::ones({4});
  const Tensor int_mask = lazy::ones({3, 5}, lazy::i32), mask = lazy::ones({3, 5}, lazy::bool_);
  const Tensor narrow_mask = lazy::ones({3, 4}, lazy::bool_);
  const Tensor q4 = lazy::ones({1, 6, 3, 4}), k4 = lazy::ones({1, 4, 5, 4});
  const Tensor q2 = lazy::ones({3, 4}), k2 = lazy::ones({5, 4}), v2 = lazy::ones({5, 6});
  const std::size_t recorded = lazy::ir::Trace::current().size();
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError, lazy::scaled_dot_product_attention(q, k_f16, v));
  const auto sdpa = [&](auto... args) { return lazy::scaled_dot_product_attention(args...); };
  const auto message = [&](auto f) { return message_of<lazy::Error>(f); };
  EXPECT_THAT(message([&] { sdpa(q, k_short, v); }), HasSubstr("[2, 3, 4]"));
  EXPECT_THAT(message([&] { sdpa(q, k, v_short); }), HasSubstr("[2, 4, 6]"));
  EXPECT_THAT(message([&] { sdpa(vector, k, v); }), HasSubstr("needs query [..., L, E]"));
  EXPECT_THAT(message([&] { sdpa(q, k, v, int_mask); }),
              HasSubstr("attn_mask must be bool, f32 or query's dtype, got i32"));
  EXPECT_THAT(message([&] { sdpa(q, k, v, narrow_mask); }),
              HasSubstr("attn_mask of shape [3, 4] does not broadcast"));
  EXPECT_THAT(message([&] { sdpa(q, k, v, mask, 0.0, true); }),
              HasSubstr("takes attn_mask or is_causal, not both"));
  EXPECT_THAT(message([&] { sdpa(q, k, v, std::nullopt, 0.1); }),
              HasSubstr("needs a dropout_seed"));
  EXPECT_THAT(message([&] { sdpa(q, k, v, std::nullopt, 1.5); }),
              HasSubstr("dropout_p must be in [0, 1]"));
  EXPECT_THAT(message([&] { sdpa(q4, k4, k4, std::nullopt, 0.0, false, std::nullopt, true); }),
              HasSubstr("6 query heads against 4"));
  EXPECT_THAT(message([&] { sdpa(q2, k2, v2, std::nullopt, 0.0, false, std::nullopt, true); }),
              HasSubstr("enable_gqa needs a head axis"));
  EXPECT_EQ(lazy::ir::Trace::current().size(), recorded);
  lazy::ir::Trace::current().clear();
}

}  // namespace
