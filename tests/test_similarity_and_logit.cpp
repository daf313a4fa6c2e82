// cosine_similarity, pairwise_distance and logit against PyTorch 2.11's values and gradients
// (measured on the GPU machine, .probe/median/probe.py), including a zero vector and logit's
// ends; their errors. Computed by whatever backend runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <span>
#include <vector>

#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using lazy_test::kInf;
using lazy_test::kNaN;

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i << ": " << got[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 2e-6 * std::max(1.0, std::fabs(want[i]))) << i;
    }
  }
}

std::vector<Tensor> gradients(const std::function<Tensor(std::span<const Tensor>)>& f,
                              std::vector<Tensor> at) {
  return lazy::grad([&](std::span<const Tensor> v) { return lazy::sum(f(v)); })(at);
}

TEST(CosineSimilarity, IsPyTorchsWithAZeroVector) {
  const Tensor a = lazy::from_data(std::vector<double>{1, 2, 3, 0, 0, 0}, {2, 3});
  const Tensor b = lazy::from_data(std::vector<double>{1, 0, 1, 1, 1, 1}, {2, 3});
  expect_near_all(lazy::cosine_similarity(a, b).to_vector<double>(), {0.7559289336204529, 0});
  // Broadcast: [1, 3] against [2, 3].
  expect_near_all(
      lazy::cosine_similarity(a.slice(0, 0, 1),
                              lazy::from_data(std::vector<double>{1, 0, 1, 2, 2, 2}, {2, 3}))
          .to_vector<double>(),
      {0.7559289336204529, 0.9258200526237488});
  // A zero vector's gradient is the other's unit vector over eps, as PyTorch's.
  const std::vector<Tensor> g =
      gradients([](std::span<const Tensor> v) { return lazy::cosine_similarity(v[0], v[1]); },
                {lazy::from_data(std::vector<double>{0, 0, 0, 1, 2, 3}, {2, 3}),
                 lazy::from_data(std::vector<double>{1, 1, 1, 1, 0, 1}, {2, 3})});
  expect_near_all(g[0].to_vector<double>(),
                  {57735028.0, 57735028.0, 57735028.0, 0.13498730957508087, -0.1079898402094841,
                   0.026997476816177368});
  expect_near_all(g[1].to_vector<double>(),
                  {0, 0, 0, -0.18898223340511322, 0.37796446681022644, 0.18898221850395203});
  EXPECT_NEAR(lazy::cosine_similarity(a.to(DType::f16), b.to(DType::f16)).to_vector<double>()[0],
              0.755859375, 1e-3);
  EXPECT_THROW((void)lazy::cosine_similarity(a.to(DType::i64), b.to(DType::i64)), lazy::DTypeError);
  EXPECT_THROW((void)lazy::cosine_similarity(a, b, 2), lazy::AxisError);
}

// Found by torch_check seed 18034 program 20: a zero vector beside one holding -inf. PyTorch's
// norm backward masks x / norm at the zero norm but multiplies the NaN cotangent in after, so the
// zero vector's whole gradient is NaN; it was 0 beside the infinity's NaN.
TEST(CosineSimilarity, AZeroVectorBesideAnInfinityHasNaNGradientsAsPyTorchs) {
  const std::vector<Tensor> g = gradients(
      [](std::span<const Tensor> v) { return lazy::cosine_similarity(v[0], v[1]); },
      {lazy::from_data(std::vector<double>{0, 0, 0, 1, 2, 3}, {2, 3}),
       lazy::from_data(std::vector<double>{2.0292809, -kInf, 1.9929630, 1, 0, 1}, {2, 3})});
  expect_near_all(g[0].to_vector<double>(), {kNaN, kNaN, kNaN, 0.13498730957508087,
                                             -0.1079898402094841, 0.026997476816177368});
}

TEST(PairwiseDistance, IsTheNormOfTheDifferencePlusEps) {
  const Tensor a = lazy::from_data(std::vector<double>{1, 2, 3}, {1, 3});
  const Tensor b = lazy::from_data(std::vector<double>{1, 0, 1}, {1, 3});
  expect_near_all(lazy::pairwise_distance(a, b).to_vector<double>(), {2.8284285068511963});
  expect_near_all(lazy::pairwise_distance(a, b, 1, 0, true).to_vector<double>(), {4});
  EXPECT_EQ(lazy::pairwise_distance(a, b, 1, 0, true).shape(), (lazy::Shape{1, 1}));
}

TEST(Logit, ValuesAndGradientsAtItsEndsArePyTorchs) {
  const Tensor x = lazy_test::f32_values({0, 0.25, 1, 1.5, -0.5, kNaN});
  expect_near_all(lazy::logit(x).to_vector<double>(),
                  {-kInf, -1.0986123085021973, kInf, kNaN, kNaN, kNaN});
  expect_near_all(
      lazy::logit(x.slice(0, 0, 4), 0.1).to_vector<double>(),
      {-2.1972246170043945, -1.0986123085021973, 2.1972243785858154, 2.1972243785858154});
  expect_near_all(gradients([](std::span<const Tensor> v) { return lazy::logit(v[0]); },
                            {lazy_test::f32_values({0, 0.25, 1, 1.5})})[0]
                      .to_vector<double>(),
                  {kInf, 5.333333492279053, kInf, kNaN});
  // With eps, NaN passes a NaN gradient (torch_check seed 18007 program 8): PyTorch's
  // logit_backward tests the bounds itself, where a clamp would pass none.
  expect_near_all(gradients([](std::span<const Tensor> v) { return lazy::logit(v[0], 0.1); },
                            {lazy_test::f32_values({0, 0.1, 0.25, 0.9, 1, kNaN})})[0]
                      .to_vector<double>(),
                  {0, 11.111111640930176, 5.333333492279053, 11.111108779907227, 0, kNaN});
  EXPECT_EQ(lazy::logit(lazy::ones({2}, DType::i32)).dtype(), DType::f32);
  EXPECT_EQ(lazy::logit(x.to(DType::bf16)).dtype(), DType::bf16);
}

}  // namespace
