// lazy::einsum against the sum over every index that defines it: products of two operands, one
// operand's permutations, diagonals and sums, chains of three, the ellipsis, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "error_test_support.h"
#include "gradient_test_support.h"
#include "ir/node.h"
#include "ir/trace.h"
#include "matmul_test_support.h"

namespace {

using namespace lazy_test;  // NOLINT: the shared test helpers

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using ::testing::HasSubstr;

struct EinsumCase {
  const char* equation;
  Shape a, b;
};

class Einsum : public ::testing::TestWithParam<std::tuple<EinsumCase, DType>> {};

TEST_P(Einsum, MatchesTheSumOverEveryIndex) {
  const auto& [c, dtype] = GetParam();
  HostTensor a = random_tensor(c.a, dtype, 1), b = random_tensor(c.b, dtype, 2);
  expect_product(lazy::einsum(c.equation, a.tensor, b.tensor), naive_einsum(c.equation, a, b),
                 dtype);
}

const EinsumCase kCases[] = {
    {"ij,jk->ik", {3, 4}, {4, 5}},
    {"bij,bjk->bik", {2, 3, 4}, {2, 4, 5}},
    {"bhqd,bhkd->bhqk", {2, 3, 4, 5}, {2, 3, 6, 5}},  // attention scores
    {"bhqk,bhkd->bhqd", {2, 3, 4, 6}, {2, 3, 6, 5}},  // attention output
    {"ij,kj->ik", {3, 4}, {5, 4}},
    {"i,i->", {6}, {6}},
    {"ij,j->i", {3, 4}, {4}},
    {"bi,bi->b", {3, 4}, {3, 4}},
    {"ji,jk->ki", {4, 3}, {4, 5}},                // the output transposed
    {"abij,bjk->bkia", {2, 3, 4, 5}, {3, 5, 2}},  // batch and kept axes interleaved
    {"ijkl,klm->ijm", {2, 3, 4, 5}, {4, 5, 3}},   // two contracted axes, two kept
    {"ij,kl->ijkl", {2, 3}, {4, 5}},              // an outer product
    {"bqd,bkd->bqk", {2, 0, 3}, {2, 4, 3}},       // no rows
    {"ij,jk->ik", {3, 0}, {0, 5}},                // nothing to sum: zeros
    {"bij,bjk->bik", {1, 3, 4}, {2, 4, 5}},       // a batch index of size 1 broadcasts
    {"bhqd,bhkd->bhqk", {2, 3, 4, 5}, {2, 1, 6, 5}},
    {"ij,jk->ik", {3, 1}, {4, 5}},  // so does a contracted one
};

INSTANTIATE_TEST_SUITE_P(Equations, Einsum,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::ValuesIn(kFloatingDTypes)));

TEST(EinsumForms, WithoutAnArrowTheOutputIsTheIndicesSeenOnceInOrder) {
  HostTensor a = random_tensor({3, 4}, lazy::f32, 3), b = random_tensor({5, 4}, lazy::f32, 4);
  expect_product(lazy::einsum("ij,kj", a.tensor, b.tensor), naive_einsum("ij,kj->ik", a, b),
                 lazy::f32);
  expect_product(lazy::einsum("kj,ij", b.tensor, a.tensor), naive_einsum("kj,ij->ik", b, a),
                 lazy::f32);
}

TEST(EinsumForms, SpacesAreIgnoredAndUpperCaseIndicesAreIndices) {
  HostTensor a = random_tensor({3, 4}, lazy::f32, 5), b = random_tensor({4, 5}, lazy::f32, 6);
  expect_product(lazy::einsum(" iJ , Jk -> ik ", a.tensor, b.tensor),
                 naive_einsum("iJ,Jk->ik", a, b), lazy::f32);
}

TEST(EinsumForms, ManyBatchIndicesAreMergedIntoOneBatchAxis) {
  HostTensor a = random_tensor({2, 1, 2, 1, 2, 1, 2, 3}, lazy::f32, 7);
  HostTensor b = random_tensor({2, 1, 2, 1, 2, 1, 2, 3}, lazy::f32, 8);
  expect_product(lazy::einsum("abcdefgh,abcdefgh->abcdefg", a.tensor, b.tensor),
                 naive_einsum("abcdefgh,abcdefgh->abcdefg", a, b), lazy::f32);
}

// An ellipsis stands for the axes its operand's rank leaves to it, broadcast from the last
// between the operands as PyTorch's are; each case against the same equation with letters.
TEST(EinsumForms, AnEllipsisIsTheAxesItsOperandLeavesOver) {
  const struct {
    const char* equation;
    const char* with_letters;
    Shape a, b;
  } cases[] = {
      {"...ij,...jk->...ik", "xij,xjk->xik", {2, 3, 4}, {2, 4, 5}},
      {"...ij,jk->...ik", "xyij,jk->xyik", {2, 3, 4, 5}, {5, 6}},           // kept axes
      {"...ij,...jk->...ik", "xyij,yjk->xyik", {2, 3, 4, 5}, {3, 5, 6}},    // fewer in one
      {"...ij,...jk->...ik", "xyij,yjk->xyik", {2, 1, 4, 5}, {3, 5, 6}},    // size 1 broadcasts
      {"...ij,...jk", "xij,xjk->xik", {2, 3, 4}, {2, 4, 5}},                // implicit: first
      {"...ij,...jk->...ik", "ij,jk->ik", {3, 4}, {4, 5}},                  // no axes
      {"a...c,a...c->a...", "axyc,axyc->axy", {2, 3, 1, 4}, {2, 3, 5, 4}},  // in the middle
      {"...ij,...jk->ik", "xij,xjk->ik", {2, 3, 4}, {2, 4, 5}},             // summed: both
      {"...ij,...jk->ik...", "xij,xjk->ikx", {2, 3, 4}, {2, 4, 5}},         // placed last
      {"b...,b...->", "bxy,bxy->", {2, 3, 4}, {2, 3, 4}},                   // all contracted
      {"...AB,...BC", "xAB,xBC->xAC", {5, 2, 3}, {5, 3, 4}},  // its letters are not the user's
      {"ij,jk->...ik", "ij,jk->ik", {2, 3}, {3, 4}},          // in the output only: no axes
      {"...ij,jk->ik", "xij,jk->ik", {2, 2, 3}, {3, 4}},      // in one operand only: summed
      {"ij,...jk->ij", "ij,xjk->ij", {2, 3}, {2, 3, 4}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.equation);
    HostTensor a = random_tensor(c.a, lazy::f32, 11), b = random_tensor(c.b, lazy::f32, 12);
    expect_product(lazy::einsum(c.equation, a.tensor, b.tensor), naive_einsum(c.with_letters, a, b),
                   lazy::f32);
  }
}

TEST(EinsumForms, RecordsOneMatMulNode) {
  Tensor y = lazy::einsum("bhqd,bhkd->bhqk", lazy::ones({2, 3, 4, 5}), lazy::ones({2, 3, 6, 5}));
  int products = 0;
  for (const auto& node : lazy::ir::Trace::current().pending())
    products += node->op == lazy::ir::Op::MatMul;
  EXPECT_EQ(products, 1);
  EXPECT_EQ(y.shape(), (Shape{2, 3, 4, 6}));
  lazy::ir::Trace::current().clear();
}

// What PyTorch computes beyond one product: diagonals of repeated indices, indices summed out of
// one operand, a pair with nothing to sum, one operand alone and chains of three.
TEST(EinsumForms, DiagonalsSumsAndAnyNumberOfOperands) {
  const struct {
    const char* equation;
    const char* explicit_equation;
    std::vector<Shape> shapes;
  } cases[] = {
      {"ij->ji", "ij->ji", {{3, 4}}},
      {"ij->j", "ij->j", {{3, 4}}},
      {"ij->", "ij->", {{3, 4}}},
      {"ii->i", "ii->i", {{4, 4}}},
      {"ii", "ii->", {{4, 4}}},  // a trace
      {"iij->ji", "iij->ji", {{3, 3, 5}}},
      {"bii->b", "bii->b", {{2, 3, 3}}},
      {"iii->i", "iii->i", {{3, 3, 3}}},
      {"...ii->...i", "xii->xi", {{2, 3, 3}}},
      {"ij", "ij->ij", {{3, 4}}},
      {"ji", "ji->ij", {{3, 4}}},
      {"ij,jk->k", "ij,jk->k", {{2, 3}, {3, 4}}},    // i summed out of the first
      {"ij,jk->i", "ij,jk->i", {{2, 3}, {3, 4}}},    // k out of the second
      {"ii,ij->j", "ii,ij->j", {{3, 3}, {3, 4}}},    // a diagonal, then a product
      {"ij,ij->ij", "ij,ij->ij", {{3, 4}, {3, 4}}},  // pointwise
      {"ij,ij->ji", "ij,ij->ji", {{3, 4}, {1, 4}}},  // pointwise, broadcast
      {"i,j->ij", "i,j->ij", {{3}, {4}}},            // outer
      {"bi,bj->bij", "bi,bj->bij", {{2, 3}, {2, 4}}},
      {"ij,jk,kl->il", "ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}},
      {"i,i,i->", "i,i,i->", {{5}, {5}, {5}}},
      {"bn,anm,bm->ba", "bn,anm,bm->ba", {{2, 3}, {4, 3, 5}, {2, 5}}},  // bilinear
      {"ij,jk,kl", "ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}},
      {"a,b,c,d->abcd", "a,b,c,d->abcd", {{2}, {3}, {1}, {2}}},
  };
  for (const lazy::DType dtype : kFloatingDTypes) {
    for (const auto& c : cases) {
      SCOPED_TRACE(std::string(c.equation) + " " + std::string(lazy::dtype_name(dtype)));
      std::vector<HostTensor> operands;
      std::vector<Tensor> tensors;
      std::vector<const HostTensor*> hosts;
      for (std::size_t i = 0; i < c.shapes.size(); ++i)
        operands.push_back(random_tensor(c.shapes[i], dtype, unsigned(20 + i)));
      for (const HostTensor& h : operands) {
        tensors.push_back(h.tensor);
        hosts.push_back(&h);
      }
      expect_product(lazy::einsum(c.equation, tensors), naive_einsum(c.explicit_equation, hosts),
                     dtype);
    }
  }
}

TEST(EinsumForms, TakesOperandsAsLibTorchsListOrOneByOne) {
  HostTensor a = random_tensor({3, 4}, lazy::f32, 31), b = random_tensor({4, 5}, lazy::f32, 32);
  const Expected product = naive_einsum("ij,jk->ik", a, b);
  expect_product(lazy::einsum("ij,jk->ik", {a.tensor, b.tensor}), product, lazy::f32);
  expect_product(lazy::einsum("ij,jk->ik", a.tensor, b.tensor), product, lazy::f32);
  expect_product(lazy::einsum("ij->ji", a.tensor), naive_einsum("ij->ji", {&a}), lazy::f32);
  expect_product(lazy::einsum("ij->ji", std::vector<Tensor>{a.tensor}),
                 naive_einsum("ij->ji", {&a}), lazy::f32);
}

// Without a product any dtype goes: a permutation, a diagonal and a pointwise pair keep it, and a
// sum follows lazy::sum (i64), as PyTorch's einsum gives.
TEST(EinsumForms, IntegersArePermutedMultipliedPointwiseAndSummedAsSumWould) {
  Tensor x = lazy::from_data(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor t = lazy::einsum("ij->ji", x);
  EXPECT_EQ(t.dtype(), lazy::i32);
  EXPECT_EQ(t.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 4, 2, 5, 3, 6}));
  Tensor rows = lazy::einsum("ij->i", x);
  EXPECT_EQ(rows.dtype(), lazy::i64);
  EXPECT_EQ(rows.to_vector<std::int64_t>(), (std::vector<std::int64_t>{6, 15}));
  Tensor squares = lazy::einsum("ij,ij->ji", x, x);
  EXPECT_EQ(squares.dtype(), lazy::i32);
  EXPECT_EQ(squares.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 16, 4, 25, 9, 36}));
  Tensor square = lazy::from_data(std::vector<std::int32_t>{1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(lazy::einsum("ii->i", square).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{1, 4}));
}

// A pair that sums no index is a pointwise product, which fuses: no library call.
TEST(EinsumForms, APairWithNothingToSumRecordsNoMatMul) {
  lazy::ir::Trace::current().clear();
  Tensor outer = lazy::einsum("i,j->ij", lazy::ones({3}), lazy::ones({4}));
  Tensor same = lazy::einsum("ij,ij->ji", lazy::ones({3, 4}), lazy::ones({3, 4}));
  for (const auto& node : lazy::ir::Trace::current().pending())
    EXPECT_NE(node->op, lazy::ir::Op::MatMul);
  EXPECT_EQ(outer.shape(), (Shape{3, 4}));
  EXPECT_EQ(same.shape(), (Shape{4, 3}));
  lazy::ir::Trace::current().clear();
}

// einsum's diagonals, sums, pointwise pairs and chains are views and ops with gradients of their
// own (api/einsum.cpp).
TEST(EinsumForms, GradientsMatchDifferences) {
  expect_gradients_match([](auto t) { return lazy::einsum("ii->i", t[0]); }, {input({3, 3}, 33)},
                         "a diagonal");
  expect_gradients_match([](auto t) { return lazy::einsum("ij,jk->k", t[0], t[1]); },
                         {input({2, 3}, 34), input({3, 4}, 35)}, "a sum, then a product");
  expect_gradients_match([](auto t) { return lazy::einsum("bi,bj->bij", t[0], t[1]); },
                         {input({2, 3}, 36), input({2, 4}, 37)}, "an outer product");
  expect_gradients_match(
      [](auto t) {
        return lazy::einsum("ij,jk,kl->il", {t[0], t[1], t[2]});
      },
      {input({2, 3}, 38), input({3, 4}, 39), input({4, 2}, 40)}, "a chain");
}

// ---------------------------------------------------------------------------------------------
// Errors.

std::string value_error(const char* equation, const Shape& a, const Shape& b) {
  return message_of<lazy::ValueError>(
      [&] { lazy::einsum(equation, lazy::ones(a), lazy::ones(b)); });
}

TEST(EinsumErrors, UnsupportedEquationsAreValueErrorsNamingTheEquationAndWhy) {
  const struct {
    const char* equation;
    Shape a, b;
    const char* why;
  } cases[] = {
      {"....ij,jk->ik", {2, 3}, {3, 4}, "a '.' that is not part of one \"...\""},
      {"..ij,jk->ik", {2, 3}, {3, 4}, "a '.' that is not part of one \"...\""},
      {"...i...j,jk->ik", {2, 3}, {3, 4}, "a '.' that is not part of one \"...\""},
      {"...ij,...jk->...ik..", {2, 3}, {3, 4}, "a '.' that is not part of one \"...\""},
      // The user's characters are checked before the ellipsis takes letters.
      {"...i$,jk->ik", {2}, {3, 4}, "'$' is not an index"},
      {"...ij,...jk->ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghlmnopqrstuvwxyz...",
       {7, 2, 3},
       {3, 4},
       "output index 'A' is in no operand"},
      {"ij,jk->iik", {2, 3}, {3, 4}, "index 'i' repeats in the output"},
      {"ij,jk->ikl", {2, 3}, {3, 4}, "output index 'l' is in no operand"},
      {"ij,jk,kl->il", {2, 3}, {3, 4}, "names the indices of 3 operand(s)"},
      {"ij->ij", {2, 3}, {3, 4}, "names the indices of 1 operand(s)"},
      {"i1,1k->ik", {2, 3}, {3, 4}, "'1' is not an index"},
      {"ij-jk", {2, 3}, {3, 4}, "a stray '-' or '>'"},
  };
  for (const auto& c : cases) {
    std::string message = value_error(c.equation, c.a, c.b);
    EXPECT_THAT(message, HasSubstr(std::string("\"") + c.equation + "\"")) << c.equation;
    EXPECT_THAT(message, HasSubstr(c.why)) << c.equation;
  }
}

TEST(EinsumErrors, SizesOfAnIndexMustAgreeNamingBothShapes) {
  std::string message = message_of<lazy::ShapeError>([] {
    lazy::einsum("ij,jk->ik", lazy::ones({2, 3}), lazy::ones({4, 5}));
  });
  EXPECT_THAT(message, HasSubstr("index 'j' is 3 in the first operand's shape [2, 3] but 4 in the "
                                 "second operand's shape [4, 5]"));
  message = message_of<lazy::ShapeError>([] {
    lazy::einsum("ij,jk,kl->il", {lazy::ones({2, 3}), lazy::ones({3, 4}), lazy::ones({5, 6})});
  });
  EXPECT_THAT(message, HasSubstr("index 'k' is 4 in the second operand's shape [3, 4] but 5 in "
                                 "the third operand's shape [5, 6]"));
  message = message_of<lazy::ShapeError>([] { lazy::einsum("ii->i", lazy::ones({2, 3})); });
  EXPECT_THAT(message, HasSubstr("index 'i' repeats in the first operand, whose shape [2, 3] "
                                 "gives it sizes 2 and 3"));
}

TEST(EinsumErrors, AnOutputOrIntermediateOfMoreThanEightAxesIsRefused) {
  const Tensor v = lazy::ones({1});
  std::string message = message_of<lazy::ShapeError>([&] {
    lazy::einsum("a,b,c,d,e,f,g,h,i->abcdefghi", {v, v, v, v, v, v, v, v, v});
  });
  EXPECT_THAT(message, HasSubstr("the output would have 9 axes"));
  // Contracted left to right, the first three leave 9 indices the last one needs.
  const Tensor w = lazy::ones({1, 1, 1, 1}), m = lazy::ones({1, 1, 1, 1, 1, 1, 1, 1});
  message = message_of<lazy::ShapeError>([&] {
    lazy::einsum("abcd,efgh,i,abcdefgh->i", {w, w, v, m});
  });
  EXPECT_THAT(message, HasSubstr("an intermediate result would have 9 axes"));
}

TEST(EinsumErrors, AnEllipsisNeedsAxesLeftAndAxesThatBroadcast) {
  std::string message = message_of<lazy::ShapeError>([] {
    lazy::einsum("...ijk,kl->...il", lazy::ones({2, 3}), lazy::ones({3, 4}));
  });
  EXPECT_THAT(message, HasSubstr("the first operand's shape [2, 3] has fewer axes than its 3 "
                                 "indices besides the ellipsis"));
  message = message_of<lazy::ShapeError>([] {
    lazy::einsum("...ij,...jk->...ik", lazy::ones({2, 3, 4}), lazy::ones({3, 4, 5}));
  });
  EXPECT_THAT(message, HasSubstr("an axis of the ellipsis is 2 in the first operand's shape"));
  EXPECT_THAT(message, HasSubstr("[3, 4, 5]"));
}

TEST(EinsumErrors, IndicesMustMatchEachOperandsRank) {
  std::string message = message_of<lazy::ShapeError>([] {
    lazy::einsum("ijk,jk->i", lazy::ones({2, 3}), lazy::ones({3, 4}));
  });
  EXPECT_THAT(message, HasSubstr("[2, 3]"));
  EXPECT_THAT(message, HasSubstr("\"ijk\""));
}

TEST(EinsumErrors, DTypesFollowMatmulsRules) {
  EXPECT_THROW(lazy::einsum("ij,jk->ik", lazy::ones({2, 2}, lazy::i64), lazy::ones({2, 2})),
               lazy::DTypeError);
  EXPECT_THROW(lazy::einsum("ij,jk->ik", lazy::ones({2, 2}, lazy::bf16), lazy::ones({2, 2})),
               lazy::DTypeError);
  EXPECT_THROW(lazy::einsum("ij,ij->ij", lazy::ones({2, 2}, lazy::i32), lazy::ones({2, 2})),
               lazy::DTypeError);
  EXPECT_THROW(lazy::einsum("ij,jk,kl->il", {lazy::ones({2, 2}), lazy::ones({2, 2}),
                                             lazy::ones({2, 2}, lazy::f16)}),
               lazy::DTypeError);
}

TEST(EinsumErrors, AreThrownAtTheUsersLineWithNothingRecorded) {
  Tensor a = lazy::ones({2, 3}), b = lazy::ones({3, 4});
  const std::size_t recorded = lazy::ir::Trace::current().size();
  EXPECT_ERROR_AT_THIS_LINE(lazy::ValueError, lazy::einsum("ij,jk->iik", a, b));
  EXPECT_ERROR_AT_THIS_LINE(lazy::ShapeError, lazy::einsum("ij,jk->ik", a, b.transpose(0, 1)));
  EXPECT_EQ(lazy::ir::Trace::current().size(), recorded + 1);  // the transpose
  lazy::ir::Trace::current().clear();
}

}  // namespace
