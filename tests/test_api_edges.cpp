// Calls at the edges of their arguments, each against what PyTorch does there: reading one
// element as another type, sizes near 2^63, 0-d tensors, malformed equations, a product scaled by
// 0, a reversed view given out through DLPack. Found in review.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <dlpack/dlpack.h>
#include <lazy/lazy.h>

#include "error_test_support.h"

namespace {

using ::lazy::DType;
using ::lazy::Tensor;
using ::lazy_test::message_of;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(ApiEdges, ItemConvertsAsToVectorDoes) {
  // A fraction and NaN are true, as a cast to bool; past i32's range saturates; an i64 goes to
  // float rounded once.
  EXPECT_TRUE(lazy::full({}, 0.5f).item<bool>());
  EXPECT_TRUE(lazy::full({}, NAN).item<bool>());
  EXPECT_FALSE(lazy::full({}, -0.0f).item<bool>());
  EXPECT_EQ(lazy::full({}, 3e9, DType::f32).item<std::int32_t>(),
            std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(lazy::full({}, -3e9, DType::f32).item<std::int32_t>(),
            std::numeric_limits<std::int32_t>::min());
  const std::int64_t big = (std::int64_t(1) << 60) + (std::int64_t(1) << 36) + 1;
  const Tensor wide = lazy::from_data<std::int64_t>({big}, {});
  EXPECT_EQ(wide.item<float>(), static_cast<float>(big));
  EXPECT_EQ(wide.to_vector<float>()[0], static_cast<float>(big));
  EXPECT_EQ(wide.item<std::int64_t>(), big);
  EXPECT_EQ(lazy::full({}, 2.75f).item<double>(), 2.75);
}

TEST(ApiEdges, ChunkIntoMorePiecesThanElements) {
  const Tensor x = lazy::arange(0, 5, 1, DType::f32);
  for (const std::int64_t chunks : {std::int64_t(7), std::numeric_limits<std::int64_t>::max(),
                                    std::numeric_limits<std::int64_t>::max() - 2}) {
    const std::vector<Tensor> pieces = lazy::chunk(x, chunks);
    ASSERT_EQ(pieces.size(), 5u) << chunks;  // one element each, as torch.chunk
    for (std::size_t i = 0; i < pieces.size(); ++i)
      EXPECT_EQ(pieces[i].to_vector<float>(), std::vector<float>{float(i)});
  }
}

TEST(ApiEdges, ErrorsSayWhatTheUserWrote) {
  const Tensor scalar = lazy::full({}, 3.0f);
  EXPECT_THAT(message_of<lazy::AxisError>([&] { (void)scalar.size(0); }), HasSubstr("0-d"));
  EXPECT_THAT(message_of<lazy::AxisError>([&] { (void)scalar.slice(0, 0, 1); }), HasSubstr("0-d"));
  const Tensor five = lazy::arange(0, 5, 1, DType::f32);
  const std::string reshaped = message_of<lazy::ShapeError>([&] {
    (void)five.reshape({-1, std::int64_t(1) << 61});
  });
  EXPECT_THAT(reshaped, HasSubstr("cannot reshape"));
  EXPECT_THAT(reshaped, HasSubstr("[-1, 2305843009213693952]"));
  const std::string negative = message_of<lazy::ValueError>([] {
    (void)lazy::one_hot(lazy::from_data<std::int64_t>({-3, -5}, {2}), -1);
  });
  EXPECT_THAT(negative, HasSubstr("negative"));
  EXPECT_THAT(negative, Not(HasSubstr("got -2")));
  const std::string ranks = message_of<lazy::ShapeError>([] {
    (void)lazy::scatter(lazy::zeros({3}), 0, lazy::from_data<std::int64_t>({1}, {1, 1}), 2.0);
  });
  EXPECT_THAT(ranks, HasSubstr("index of shape [1, 1]"));
  EXPECT_THAT(ranks, Not(HasSubstr("src")));  // the user passed a number
  const Tensor a = lazy::ones({2, 3}), b = lazy::ones({3, 4});
  EXPECT_THAT(message_of<lazy::ValueError>([&] { (void)lazy::einsum("ij,jk-ik", a, b); }),
              HasSubstr("'->'"));
  EXPECT_THAT(message_of<lazy::ValueError>([&] { (void)lazy::einsum("ij,jk->i>k", a, b); }),
              HasSubstr("'->'"));
}

TEST(ApiEdges, TakeAlongAxisOfZeroDimTensorsPicksTheElement) {
  const Tensor got = lazy::take_along_axis(lazy::full({}, 4.5f), lazy::zeros({}, DType::i64), 0);
  EXPECT_EQ(got.rank(), 0);
  EXPECT_EQ(got.item<float>(), 4.5f);
}

TEST(ApiEdges, GatherWithAnEmptyIndexOfAnyRankIsEmpty) {
  // torch.gather checks an index's rank only when it picks something.
  const Tensor x = lazy::ones({3, 4});
  const Tensor got = lazy::gather(x, 1, lazy::zeros({0}, DType::i64));
  EXPECT_EQ(got.shape(), lazy::Shape({0}));
  EXPECT_EQ(got.dtype(), DType::f32);
  EXPECT_EQ(lazy::gather(x, -1, lazy::zeros({2, 0, 5}, DType::i64)).shape(),
            lazy::Shape({2, 0, 5}));
  EXPECT_THROW((void)lazy::gather(x, 2, lazy::zeros({0}, DType::i64)), lazy::AxisError);
  EXPECT_THROW((void)lazy::gather(x, 1, lazy::zeros({1}, DType::i64)), lazy::ShapeError);
}

TEST(ApiEdges, AddmmWithAlphaZeroLeavesTheProductOut) {
  // torch.addmm(c, a, b, alpha=0): inf and NaN in a @ b do not reach the result.
  const Tensor c = lazy::from_data<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = lazy::ones({2, 3});
  EXPECT_EQ(lazy::addmm(c, lazy::full({2, 2}, INFINITY), b, 1, 0).to_vector<float>(),
            c.to_vector<float>());
  EXPECT_EQ(lazy::addmm(c, lazy::full({2, 2}, NAN), b, 2, 0).to_vector<float>(),
            (std::vector<float>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(lazy::addmm(lazy::full({3}, NAN), lazy::full({2, 2}, NAN), b, 0, 0).to_vector<float>(),
            std::vector<float>(6, 0.0f));
}

TEST(ApiEdges, AReversedViewGoesOutThroughDlpackAsADenseCopy) {
  // DLPack's consumers (PyTorch, lazyfuse's own from_dlpack) refuse negative strides.
  const Tensor reversed = lazy::arange(0, 6, 1, DType::f32).slice(0, {}, {}, -1);
  DLManagedTensor* out = lazy::to_dlpack(reversed);
  EXPECT_EQ(out->dl_tensor.strides[0], 1);
  const Tensor back = lazy::from_dlpack(out);
  EXPECT_EQ(back.to_vector<float>(), (std::vector<float>{5, 4, 3, 2, 1, 0}));
}

// Found in review: the two-pass mean left a residue in rows of equal elements, which the norm
// blew up (layer_norm of 1000.1s gave -0.02, -1 with eps 1e-12) and var summed (inf for 3e38s).
TEST(ApiEdges, MomentsOfARowOfEqualElementsAreExact) {
  const Tensor row = lazy::full({2, 5}, 1000.1f);
  const Tensor weight = lazy::ones({5}), bias = lazy::zeros({5});
  EXPECT_EQ(lazy::layer_norm(row, weight, bias).to_vector<float>(), std::vector<float>(10, 0.0f));
  EXPECT_EQ(lazy::layer_norm(row, weight, bias, 1e-12).to_vector<float>(),
            std::vector<float>(10, 0.0f));
  EXPECT_EQ(lazy::var(row, 1).to_vector<float>(), std::vector<float>(2, 0.0f));
  EXPECT_EQ(lazy::std(row, {0, 1}).item<float>(), 0.0f);
  EXPECT_EQ(lazy::var(lazy::full({2}, 3e38f)).item<float>(), 0.0f);
  EXPECT_EQ(lazy::var(lazy::full({3, 4}, 7.3f), 0, 0.0, true).to_vector<float>(),
            std::vector<float>(4, 0.0f));
  const Tensor g =
      lazy::grad([](auto t) { return lazy::std(t[0]); })({lazy::full({3}, 1000.1f)})[0];
  EXPECT_EQ(g.to_vector<float>(), std::vector<float>(3, 0.0f));  // std's rule at a zero std
  // Rows that differ still agree with the textbook moments.
  const Tensor x = lazy::from_data<float>({1, 2, 3, 4, 10, 20, 30, 40}, {2, 4});
  EXPECT_EQ(lazy::var(x, 1).to_vector<float>(), (std::vector<float>{5.0f / 3, 500.0f / 3}));
  EXPECT_EQ(lazy::mean(x, 1).to_vector<float>(), (std::vector<float>{2.5f, 25.0f}));
  EXPECT_EQ(lazy::var(lazy::zeros({0, 3}), 0).shape(), lazy::Shape({3}));
}

TEST(ApiEdges, StdNamesItselfInItsErrorsAndAxesAreIntegers) {
  EXPECT_THAT(message_of<lazy::AxisError>([] {
                (void)lazy::std(lazy::ones({2, 3}), 5);
              }),
              HasSubstr("lazy::std"));
  static_assert(!std::is_constructible_v<lazy::Axes, double>, "max(x, 0.5) meant maximum");
  static_assert(!std::is_constructible_v<lazy::Axes, bool>);
  static_assert(std::is_constructible_v<lazy::Axes, int>);
}

TEST(ApiEdges, ClampTakesOneResultTypeOverItsThreeOperands) {
  // As torch.clamp's result_type: promoting pair by pair made i32 between f16 and f32 0-d bounds
  // f16, and bool between i32 and i64 ones i32.
  const Tensor ints = lazy::from_data<std::int32_t>({-5, 1, 9}, {3});
  const Tensor clamped =
      lazy::clamp(ints, lazy::full({}, 0.5, DType::f16), lazy::full({}, 4.25, DType::f32));
  EXPECT_EQ(clamped.dtype(), DType::f32);
  EXPECT_EQ(clamped.to_vector<float>(), (std::vector<float>{0.5f, 1.0f, 4.25f}));
  const Tensor flags = lazy::arange(0, 2, 1, DType::i64) > 0;
  EXPECT_EQ(
      lazy::clamp(flags, lazy::full({}, 0, DType::i32), lazy::full({}, 1, DType::i64)).dtype(),
      DType::i64);
  EXPECT_EQ(lazy::clamp(ints, 0, 3).dtype(), DType::i32);
  EXPECT_THAT(message_of<lazy::ValueError>([&] { (void)lazy::clamp(ints, Tensor(), 3); }),
              HasSubstr("clamp"));
}

TEST(ApiEdges, NegatingAnOperandThatHoldsANumberIsAValueError) {
  const lazy::Operand number = 2.0;
  EXPECT_THROW((void)-number, lazy::ValueError);  // it dereferenced a null tensor
}

// Found in review: a long double past double's range became inf where the same double is
// refused; characters were numbers (x * 'a' was 97 x); a negative bound pruned the whole cache.
TEST(ApiEdges, NumbersThatAreNotNumbersAreRefused) {
  const Tensor x = lazy::ones({2});
  EXPECT_THROW((void)(x + 1e400L), lazy::ValueError);
  EXPECT_THROW((void)lazy::full({2}, -1e400L), lazy::ValueError);
  EXPECT_EQ((x + 2.5L).to_vector<float>(), (std::vector<float>{3.5f, 3.5f}));
  EXPECT_EQ((x + std::numeric_limits<long double>::infinity()).to_vector<float>()[0], INFINITY);
  static_assert(!std::is_convertible_v<char, lazy::Operand>, "x * 'a' is a typo");
  static_assert(!std::is_constructible_v<lazy::Scalar, char32_t>);
  static_assert(std::is_constructible_v<lazy::Scalar, unsigned char>);
  EXPECT_THAT(message_of<lazy::ValueError>([] { (void)lazy::prune_kernel_cache(-1); }),
              HasSubstr("prune_kernel_cache"));
}

}  // namespace
