// lazy/linalg.h's matmul, bmm, linear and addmm against products this file computes from the
// inputs' values, their shapes and dtypes, the graph they record (one MatMul node for the
// partitioner to fold work into), their errors and set_matmul_precision. einsum: test_einsum.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "error_test_support.h"
#include "ir/matmul.h"
#include "ir/node.h"
#include "ir/trace.h"
#include "matmul_test_support.h"

namespace {

using namespace lazy_test;  // NOLINT: the shared test helpers

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy::ir::Op;
using ::testing::HasSubstr;

class MatmulForms : public ::testing::TestWithParam<DType> {};

TEST_P(MatmulForms, TwoMatrices) {
  const DType dtype = GetParam();
  HostTensor a = random_tensor({3, 4}, dtype, 1), b = random_tensor({4, 5}, dtype, 2);
  expect_product(lazy::matmul(a.tensor, b.tensor), naive_einsum("ij,jk->ik", a, b), dtype);
}

TEST_P(MatmulForms, TwoVectorsGiveA0DDotProduct) {
  const DType dtype = GetParam();
  HostTensor a = random_tensor({7}, dtype, 3), b = random_tensor({7}, dtype, 4);
  expect_product(lazy::matmul(a.tensor, b.tensor), naive_einsum("i,i->", a, b), dtype);
}

TEST_P(MatmulForms, AVectorOnTheLeftIsARowWhoseAxisIsRemoved) {
  const DType dtype = GetParam();
  HostTensor a = random_tensor({4}, dtype, 5), b = random_tensor({4, 5}, dtype, 6);
  expect_product(lazy::matmul(a.tensor, b.tensor), naive_einsum("j,jk->k", a, b), dtype);
}

TEST_P(MatmulForms, AVectorOnTheRightIsAColumnWhoseAxisIsRemoved) {
  const DType dtype = GetParam();
  HostTensor a = random_tensor({3, 4}, dtype, 7), b = random_tensor({4}, dtype, 8);
  expect_product(lazy::matmul(a.tensor, b.tensor), naive_einsum("ij,j->i", a, b), dtype);
}

TEST_P(MatmulForms, BatchesOfMatricesAndVectors) {
  const DType dtype = GetParam();
  HostTensor a = random_tensor({2, 3, 4}, dtype, 9), b = random_tensor({2, 4, 5}, dtype, 10);
  HostTensor v = random_tensor({4}, dtype, 11);
  expect_product(lazy::matmul(a.tensor, b.tensor), naive_einsum("bij,bjk->bik", a, b), dtype);
  expect_product(lazy::matmul(a.tensor, v.tensor), naive_einsum("bij,j->bi", a, v), dtype);
  expect_product(lazy::matmul(v.tensor, b.tensor), naive_einsum("j,bjk->bk", v, b), dtype);
}

TEST_P(MatmulForms, BatchAxesBroadcast) {
  const DType dtype = GetParam();
  HostTensor a = random_tensor({2, 1, 3, 4}, dtype, 12), b = random_tensor({3, 4, 5}, dtype, 13);
  Expected want{{2, 3, 3, 5}, {}, {}};
  for (int x = 0; x < 2; ++x) {
    for (int y = 0; y < 3; ++y) {
      for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 5; ++k) {
          double sum = 0, scale = 0;
          for (int j = 0; j < 4; ++j) {
            const double term = a.values[(x * 3 + i) * 4 + j] * b.values[(y * 4 + j) * 5 + k];
            sum += term;
            scale += std::abs(term);
          }
          want.values.push_back(sum);
          want.scale.push_back(scale);
        }
      }
    }
  }
  expect_product(lazy::matmul(a.tensor, b.tensor), want, dtype);
}

TEST_P(MatmulForms, Bmm) {
  const DType dtype = GetParam();
  HostTensor a = random_tensor({3, 2, 4}, dtype, 14), b = random_tensor({3, 4, 6}, dtype, 15);
  expect_product(lazy::bmm(a.tensor, b.tensor), naive_einsum("bij,bjk->bik", a, b), dtype);
}

TEST_P(MatmulForms, LinearWithAndWithoutBias) {
  const DType dtype = GetParam();
  HostTensor x = random_tensor({2, 3, 4}, dtype, 16), w = random_tensor({5, 4}, dtype, 17);
  HostTensor bias = random_tensor({5}, dtype, 18), v = random_tensor({4}, dtype, 19);
  const Expected plain = naive_einsum("bij,oj->bio", x, w);
  expect_product(lazy::linear(x.tensor, w.tensor), plain, dtype);
  Expected biased = plain;
  for (std::size_t i = 0; i < biased.values.size(); ++i) {
    biased.values[i] += bias.values[i % 5];
    biased.scale[i] += std::abs(bias.values[i % 5]);
  }
  expect_product(lazy::linear(x.tensor, w.tensor, bias.tensor), biased, dtype);
  expect_product(lazy::linear(v.tensor, w.tensor), naive_einsum("j,oj->o", v, w), dtype);
}

TEST_P(MatmulForms, LinearWithAVectorWeightDropsTheLastAxis) {
  const DType dtype = GetParam();
  HostTensor x = random_tensor({2, 3, 4}, dtype, 20), w = random_tensor({4}, dtype, 21);
  HostTensor bias = random_tensor({3}, dtype, 22);
  const Tensor plain = lazy::linear(x.tensor, w.tensor);
  EXPECT_EQ(plain.shape(), Shape({2, 3}));
  expect_product(plain, naive_einsum("bij,j->bi", x, w), dtype);
  Expected biased = naive_einsum("bij,j->bi", x, w);
  for (std::size_t i = 0; i < biased.values.size(); ++i) {
    biased.values[i] += bias.values[i % 3];
    biased.scale[i] += std::abs(bias.values[i % 3]);
  }
  expect_product(lazy::linear(x.tensor, w.tensor, bias.tensor), biased, dtype);
  EXPECT_EQ(lazy::linear(w.tensor, w.tensor).shape(), Shape({}));  // a dot product
  EXPECT_THROW(lazy::linear(x.tensor, random_tensor({3}, dtype, 23).tensor), lazy::ShapeError);
}

// alpha * product + beta * added, `added` broadcast along the product's last axes.
Expected scaled_plus(const Expected& product, const HostTensor& added, double beta, double alpha) {
  Expected want = product;
  for (std::size_t i = 0; i < want.values.size(); ++i) {
    const double term = beta * added.values[i % added.values.size()];
    want.values[i] = alpha * want.values[i] + term;
    want.scale[i] = std::abs(alpha) * want.scale[i] + std::abs(term);
  }
  return want;
}

TEST_P(MatmulForms, AddmmScalesBothTerms) {
  const DType dtype = GetParam();
  HostTensor a = random_tensor({3, 4}, dtype, 20), b = random_tensor({4, 5}, dtype, 21);
  HostTensor c = random_tensor({3, 5}, dtype, 22), row = random_tensor({5}, dtype, 23);
  const Expected product = naive_einsum("ij,jk->ik", a, b);
  for (auto [beta, alpha] : {std::pair{1.0, 1.0}, {0.5, 2.0}, {1.0, -3.0}, {2.0, 1.0}}) {
    SCOPED_TRACE("beta " + std::to_string(beta) + ", alpha " + std::to_string(alpha));
    for (const HostTensor* added : {&c, &row}) {
      expect_product(lazy::addmm(added->tensor, a.tensor, b.tensor, beta, alpha),
                     scaled_plus(product, *added, beta, alpha), dtype);
    }
  }
}

TEST_P(MatmulForms, BaddbmmScalesBothTermsOfEachBatch) {
  const DType dtype = GetParam();
  HostTensor a = random_tensor({2, 3, 4}, dtype, 40), b = random_tensor({2, 4, 5}, dtype, 41);
  HostTensor c = random_tensor({2, 3, 5}, dtype, 42), row = random_tensor({5}, dtype, 43);
  const Expected product = naive_einsum("bij,bjk->bik", a, b);
  for (auto [beta, alpha] : {std::pair{1.0, 1.0}, {0.5, 2.0}, {0.0, -3.0}}) {
    SCOPED_TRACE("beta " + std::to_string(beta) + ", alpha " + std::to_string(alpha));
    for (const HostTensor* added : {&c, &row}) {
      expect_product(lazy::baddbmm(added->tensor, a.tensor, b.tensor, beta, alpha),
                     scaled_plus(product, *added, beta, alpha), dtype);
    }
  }
}

TEST_P(MatmulForms, MmMvAndDotAreMatmulOfTheirRanks) {
  const DType dtype = GetParam();
  HostTensor a = random_tensor({3, 4}, dtype, 44), b = random_tensor({4, 5}, dtype, 45);
  HostTensor v = random_tensor({4}, dtype, 46), w = random_tensor({4}, dtype, 47);
  expect_product(lazy::mm(a.tensor, b.tensor), naive_einsum("ij,jk->ik", a, b), dtype);
  expect_product(lazy::mv(a.tensor, v.tensor), naive_einsum("ij,j->i", a, v), dtype);
  expect_product(lazy::dot(v.tensor, w.tensor), naive_einsum("i,i->", v, w), dtype);
}

INSTANTIATE_TEST_SUITE_P(Floating, MatmulForms, ::testing::ValuesIn(kFloatingDTypes),
                         [](const auto& info) {
                           return std::string(lazy::dtype_name(info.param));
                         });

TEST(Addmm, WithBetaZeroIgnoresTheValuesOfC) {
  HostTensor a = random_tensor({2, 3}, lazy::f32, 24), b = random_tensor({3, 2}, lazy::f32, 25);
  Tensor c = lazy::from_data(std::vector<double>{kNaN, kInf}, {2});
  expect_product(lazy::addmm(c, a.tensor, b.tensor, 0), naive_einsum("ij,jk->ik", a, b), lazy::f32);
}

TEST(Addmm, WithBetaZeroStillChecksTheShapeOfC) {
  Tensor a = lazy::ones({2, 3}), b = lazy::ones({3, 2});
  EXPECT_THROW(lazy::addmm(lazy::ones({3}), a, b, 0), lazy::ShapeError);
}

// ---------------------------------------------------------------------------------------------
// The recorded graph: the bare product is one node; a bias or an added matrix is an Add after it.

TEST(MatmulGraph, IsOneMatMulNodeOverOperandsOfEqualBatchAxes) {
  Tensor y = lazy::matmul(lazy::ones({2, 1, 3, 4}), lazy::ones({5, 4, 6}));
  const lazy::ir::Node& node = *y.node();
  EXPECT_EQ(node.op, Op::MatMul);
  EXPECT_EQ(node.compute_dtype, lazy::f32);
  EXPECT_EQ(node.inputs[0]->shape, (Shape{2, 5, 3, 4}));
  EXPECT_EQ(node.inputs[1]->shape, (Shape{2, 5, 4, 6}));
  EXPECT_EQ(lazy::ir::matmul_epilogue(node), lazy::ir::MatmulEpilogue{});
  lazy::ir::Trace::current().clear();
}

TEST(MatmulGraph, LinearAndAddmmAddAfterTheProductWithoutMultiplyingByOne) {
  Tensor x = lazy::ones({3, 4}), w = lazy::ones({5, 4}), bias = lazy::ones({5});
  for (const Tensor& y :
       {lazy::linear(x, w, bias), lazy::addmm(lazy::ones({3, 5}), x, w.transpose(0, 1))}) {
    EXPECT_EQ(y.node()->op, Op::Add);
    EXPECT_EQ(y.node()->inputs[0]->op, Op::MatMul);
  }
  EXPECT_EQ(lazy::addmm(lazy::ones({3, 5}), x, w.transpose(0, 1), 0).node()->op, Op::MatMul);
  lazy::ir::Trace::current().clear();
}

// ---------------------------------------------------------------------------------------------
// Empty axes.

TEST(MatmulEmpty, AnInnerSizeOf0GivesZeros) {
  Tensor y = lazy::matmul(lazy::ones({3, 0}), lazy::ones({0, 5}));
  EXPECT_EQ(y.shape(), (Shape{3, 5}));
  EXPECT_EQ(y.to_vector<double>(), std::vector<double>(15, 0.0));
  EXPECT_EQ(lazy::matmul(lazy::ones({0}), lazy::ones({0})).item<double>(), 0.0);
}

TEST(MatmulEmpty, NoRowsNoColumnsOrNoBatchesGiveAnEmptyResult) {
  EXPECT_EQ(lazy::matmul(lazy::ones({0, 4}), lazy::ones({4, 5})).shape(), (Shape{0, 5}));
  EXPECT_EQ(lazy::matmul(lazy::ones({3, 4}), lazy::ones({4, 0})).shape(), (Shape{3, 0}));
  Tensor batches = lazy::bmm(lazy::ones({0, 3, 4}), lazy::ones({0, 4, 5}));
  EXPECT_EQ(batches.shape(), (Shape{0, 3, 5}));
  EXPECT_TRUE(batches.to_vector<double>().empty());
}

// ---------------------------------------------------------------------------------------------
// Errors: at the user's line, naming both shapes or both dtypes, with nothing recorded.

TEST(MatmulErrors, IntegerAndBoolOperandsAreRefused) {
  Tensor ints = lazy::ones({2, 2}, lazy::i32), floats = lazy::ones({2, 2});
  std::string message = message_of<lazy::DTypeError>([&] { lazy::matmul(ints, floats); });
  EXPECT_THAT(message, HasSubstr("integer and bool matrix products are not supported"));
  EXPECT_THAT(message, HasSubstr(".to(lazy::f32)"));
  EXPECT_THROW(lazy::matmul(lazy::ones({2, 2}, lazy::bool_), lazy::ones({2, 2}, lazy::bool_)),
               lazy::DTypeError);
}

TEST(MatmulErrors, MixedFloatingDTypesAreRefusedNamingBoth) {
  std::string message = message_of<lazy::DTypeError>([&] {
    lazy::matmul(lazy::ones({2, 2}, lazy::f16), lazy::ones({2, 2}));
  });
  EXPECT_THAT(message, HasSubstr("f16 and f32"));
  EXPECT_THROW(lazy::linear(lazy::ones({2, 2}), lazy::ones({2, 2}), lazy::ones({2}, lazy::bf16)),
               lazy::DTypeError);
  EXPECT_THROW(lazy::addmm(lazy::ones({2}, lazy::f16), lazy::ones({2, 2}), lazy::ones({2, 2})),
               lazy::DTypeError);
}

TEST(MatmulErrors, ShapeErrorsNameBothShapes) {
  auto expect_names = [](const std::function<void()>& op, const std::string& a,
                         const std::string& b) {
    std::string message = message_of<lazy::ShapeError>(op);
    EXPECT_THAT(message, HasSubstr(a));
    EXPECT_THAT(message, HasSubstr(b));
  };
  expect_names([] { lazy::matmul(lazy::ones({}), lazy::ones({3})); }, "[]", "[3]");
  expect_names([] { lazy::matmul(lazy::ones({2, 3}), lazy::ones({4, 5})); }, "[2, 3]", "[4, 5]");
  expect_names([] { lazy::matmul(lazy::ones({2, 3}), lazy::ones({4})); }, "[2, 3]", "[4]");
  expect_names(
      [] {
        lazy::matmul(lazy::ones({2, 3, 4}), lazy::ones({5, 4, 6}));
      },
      "[2, 3, 4]", "[5, 4, 6]");
  expect_names(
      [] {
        lazy::bmm(lazy::ones({2, 3, 4}), lazy::ones({1, 4, 6}));
      },
      "[2, 3, 4]", "[1, 4, 6]");
  expect_names([] { lazy::bmm(lazy::ones({3, 4}), lazy::ones({4, 6})); }, "[3, 4]", "[4, 6]");
  expect_names([] { lazy::linear(lazy::ones({2, 3}), lazy::ones({5, 4})); }, "[2, 3]", "[5, 4]");
  expect_names(
      [] {
        lazy::linear(lazy::ones({2, 4}), lazy::ones({5, 4}), lazy::ones({4}));
      },
      "[4]", "[2, 5]");
  expect_names(
      [] {
        lazy::addmm(lazy::ones({2, 5}), lazy::ones({3, 4}), lazy::ones({4, 5}));
      },
      "[2, 5]", "[3, 5]");
  expect_names(
      [] {
        lazy::addmm(lazy::ones({3, 5}), lazy::ones({3, 4}), lazy::ones({3, 5}));
      },
      "[3, 4]", "[3, 5]");
  expect_names([] { lazy::mm(lazy::ones({3, 4}), lazy::ones({4})); }, "[3, 4]", "[4]");
  expect_names([] { lazy::mm(lazy::ones({3, 4}), lazy::ones({5, 6})); }, "[3, 4]", "[5, 6]");
  expect_names([] { lazy::mv(lazy::ones({3, 4}), lazy::ones({4, 1})); }, "[3, 4]", "[4, 1]");
  expect_names([] { lazy::mv(lazy::ones({3, 4}), lazy::ones({5})); }, "[3, 4]", "[5]");
  expect_names([] { lazy::dot(lazy::ones({3}), lazy::ones({4})); }, "[3]", "[4]");
  expect_names([] { lazy::dot(lazy::ones({3}), lazy::ones({3, 1})); }, "[3]", "[3, 1]");
  expect_names(
      [] {
        lazy::baddbmm(lazy::ones({3, 5}), lazy::ones({2, 3, 4}), lazy::ones({1, 4, 5}));
      },
      "[2, 3, 4]", "[1, 4, 5]");
  expect_names(
      [] {
        lazy::baddbmm(lazy::ones({2, 4, 5}), lazy::ones({2, 3, 4}), lazy::ones({2, 4, 5}));
      },
      "[2, 4, 5]", "[2, 3, 5]");
}

TEST(MatmulErrors, AreThrownAtTheUsersLineWithNothingRecorded) {
  Tensor a = lazy::ones({2, 3}), b = lazy::ones({4, 5}), f16 = lazy::ones({3, 2}, lazy::f16);
  const std::size_t recorded = lazy::ir::Trace::current().size();
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, lazy::matmul(a, b));
  EXPECT_ERROR_AT_THIS_LINE(lazy::DTypeError, lazy::matmul(a, f16));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, lazy::bmm(a, b));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, lazy::linear(a, b));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, lazy::addmm(a, a, b));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::matmul(a, Tensor()));
  EXPECT_EQ(lazy::ir::Trace::current().size(), recorded);
  lazy::ir::Trace::current().clear();
}

// ---------------------------------------------------------------------------------------------
// Precision.

class MatmulPrecision : public ::testing::Test {
 protected:
  void TearDown() override { lazy::set_matmul_precision("highest"); }
};

TEST_F(MatmulPrecision, AcceptsPyTorchsNamesAndSaysWhichIsSet) {
  for (auto [name, now] :
       {std::pair{"tf32", "tf32"}, {"highest", "highest"}, {"high", "tf32"}, {"ieee", "highest"}}) {
    lazy::set_matmul_precision(name);
    EXPECT_EQ(lazy::matmul_precision(), now) << name;
  }
}

TEST_F(MatmulPrecision, RefusesOtherValuesListingTheAcceptedOnes) {
  lazy::set_matmul_precision("tf32");
  std::string message = message_of<lazy::ValueError>([] { lazy::set_matmul_precision("medium"); });
  for (const char* accepted : {"\"highest\"", "\"ieee\"", "\"tf32\"", "\"high\""})
    EXPECT_THAT(message, HasSubstr(accepted));
  EXPECT_EQ(lazy::matmul_precision(), "tf32");  // unchanged
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::set_matmul_precision("fp16"));
}

TEST_F(MatmulPrecision, TF32IsRecordedOnF32ProductsOnly) {
  lazy::set_matmul_precision("tf32");
  Tensor f32 = lazy::matmul(lazy::ones({2, 2}), lazy::ones({2, 2}));
  Tensor bf16 = lazy::matmul(lazy::ones({2, 2}, lazy::bf16), lazy::ones({2, 2}, lazy::bf16));
  lazy::set_matmul_precision("highest");
  Tensor exact = lazy::matmul(lazy::ones({2, 2}), lazy::ones({2, 2}));
  EXPECT_TRUE(lazy::ir::matmul_epilogue(*f32.node()).tf32);
  EXPECT_FALSE(lazy::ir::matmul_epilogue(*bf16.node()).tf32);
  EXPECT_FALSE(lazy::ir::matmul_epilogue(*exact.node()).tf32);
  EXPECT_EQ(f32.to_vector<double>(), std::vector<double>(4, 2.0));
}

}  // namespace
