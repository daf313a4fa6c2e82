// Calls at the edges of their arguments, each against what PyTorch does there: reading one
// element as another type, sizes near 2^63, 0-d tensors, malformed equations, a product scaled by
// 0, a reversed view given out through DLPack. Found in review.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>
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

// As LibTorch's item<T>(), c10's checked conversion: into an integer, NaN or a value past its
// range is an error (to_vector saturates, as a cast); into bool anything goes, as a cast.
TEST(ApiEdges, ItemConvertsCheckedAsLibTorchsItem) {
  EXPECT_TRUE(lazy::full({}, 0.5f).item<bool>());
  EXPECT_TRUE(lazy::full({}, NAN).item<bool>());
  EXPECT_FALSE(lazy::full({}, -0.0f).item<bool>());
  EXPECT_TRUE(lazy::full({}, std::int64_t(7)).item<bool>());
  const Tensor far = lazy::full({}, 3e9, DType::f32);
  EXPECT_THAT(message_of<lazy::ValueError>([&] { (void)far.item<std::int32_t>(); }),
              HasSubstr("lazy::item: the f32 value 3e+09 does not fit std::int32_t"));
  EXPECT_EQ(far.to_vector<std::int32_t>()[0], std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(far.item<std::int64_t>(), 3000000000);
  EXPECT_THROW((void)lazy::full({}, NAN).item<std::int64_t>(), lazy::ValueError);
  EXPECT_THROW((void)lazy::full({}, -INFINITY).item<std::int32_t>(), lazy::ValueError);
  EXPECT_THROW((void)lazy::full({}, 1e19f).item<std::int64_t>(), lazy::ValueError);
  // The range's ends: -2^31 fits and 2^31 does not; bf16's largest below 2^63 fits i64.
  EXPECT_EQ(lazy::full({}, -3.7f).item<std::int32_t>(), -3);
  EXPECT_EQ(lazy::full({}, -2147483648.0f).item<std::int32_t>(),
            std::numeric_limits<std::int32_t>::min());
  EXPECT_THROW((void)lazy::full({}, 2147483648.0f).item<std::int32_t>(), lazy::ValueError);
  EXPECT_EQ(lazy::full({}, 9.187343239835812e18, DType::bf16).item<std::int64_t>(),
            std::int64_t(9187343239835811840));
  const Tensor past_i32 = lazy::full({}, std::int64_t(1) << 40);
  EXPECT_THAT(message_of<lazy::ValueError>([&] { (void)past_i32.item<std::int32_t>(); }),
              HasSubstr("does not fit std::int32_t; read it as std::int64_t"));
  EXPECT_EQ(lazy::full({}, std::int64_t(-5)).item<std::int32_t>(), -5);
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
  // Found in review: nor its sizes, when it has x's rank; scatters check neither either.
  EXPECT_EQ(lazy::gather(x, 1, lazy::zeros({5, 0}, DType::i64)).shape(), lazy::Shape({5, 0}));
  const Tensor none = lazy::zeros({5, 0}, DType::i64);
  EXPECT_EQ(lazy::scatter_add(x, 1, none, lazy::zeros({5, 0})).to_vector<float>(),
            x.to_vector<float>());
  EXPECT_EQ(lazy::scatter(x, 0, lazy::zeros({0}, DType::i64), lazy::zeros({2})).shape(), x.shape());
  EXPECT_THROW((void)lazy::scatter_add(x, 2, none, lazy::zeros({5, 0})), lazy::AxisError);
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
  // Found by torch_check: no product is added either, so a -0 in c or the bias stays -0.
  const Tensor negative_zeros = lazy::full({3}, -0.0);
  for (const Tensor& kept :
       {lazy::addmm(negative_zeros, lazy::ones({2, 2}), b, 1, 0),
        lazy::addmm(negative_zeros, lazy::ones({2, 0}), lazy::ones({0, 3})),
        lazy::linear(lazy::ones({2, 0}), lazy::ones({3, 0}), negative_zeros)}) {
    EXPECT_EQ(kept.shape(), lazy::Shape({2, 3}));
    for (float v : kept.to_vector<float>()) EXPECT_TRUE(v == 0 && std::signbit(v)) << v;
  }
  const Tensor empty_a = lazy::ones({2, 0}), empty_b = lazy::ones({0, 3});
  EXPECT_EQ(lazy::addmm(c, empty_a, empty_b, 2).to_vector<float>(),
            (std::vector<float>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(lazy::addmm(lazy::full({3}, NAN), empty_a, empty_b, 0).to_vector<float>(),
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

// Found in review: a reversed view sliced to one element along the reversed axis kept its
// negative stride, which contiguous() (rightly) leaves alone: to_dlpack recursed until the stack
// ran out. That stride steps nowhere; it goes out as the dense one, with no copy.
TEST(ApiEdges, ANegativeStrideAlongAnAxisOfOneGoesOutThroughDlpackWithoutACopy) {
  const Tensor grid = lazy::arange(0, 12, 1, DType::f32).reshape({3, 4});
  const Tensor last_row = grid.slice(0, {}, {}, -1).slice(0, 0, 1);
  ASSERT_EQ(last_row.strides(), (std::vector<std::int64_t>{-4, 1}));
  DLManagedTensor* out = lazy::to_dlpack(last_row);
  EXPECT_EQ(out->dl_tensor.strides[0], 4);
  EXPECT_EQ(out->dl_tensor.strides[1], 1);
  EXPECT_EQ(static_cast<char*>(out->dl_tensor.data) + out->dl_tensor.byte_offset,
            last_row.data_ptr());
  EXPECT_EQ(lazy::from_dlpack(out).to_vector<float>(), (std::vector<float>{8, 9, 10, 11}));
  const Tensor one = lazy::arange(0, 4, 1, DType::f32).slice(0, {}, {}, -1).slice(0, 2, 3);
  EXPECT_EQ(lazy::from_dlpack(lazy::to_dlpack(one)).to_vector<float>(), std::vector<float>{1});
}

// Found in review: strides whose reach overflowed int64 were taken, and read wrapped addresses
// (or threw std::length_error); PyTorch's from_blob refuses them.
TEST(ApiEdges, FromBlobRefusesStridesThatReachPastAnyMemory) {
  static float memory[16] = {};
  for (const std::vector<std::int64_t>& strides :
       {std::vector<std::int64_t>{std::int64_t(1) << 62},
        std::vector<std::int64_t>(1, std::int64_t(1) << 60)}) {
    const std::string message = message_of<lazy::ValueError>(
        [&] { lazy::from_blob(memory, {3}, strides, DType::f32, lazy::MemoryKind::host); });
    EXPECT_THAT(message, HasSubstr("reach past 2^60 elements"));
  }
  const std::vector<std::int64_t> overflowing(4, std::int64_t(1) << 61);
  EXPECT_THROW(
      lazy::from_blob(memory, {2, 2, 2, 2}, overflowing, DType::f32, lazy::MemoryKind::host),
      lazy::ValueError);
  const std::vector<std::int64_t> fine{1, 0};
  EXPECT_EQ(lazy::from_blob(memory, {2, 3}, fine, DType::f32, lazy::MemoryKind::host).numel(), 6);
}

// Found in review: mean multiplied the sum by 1 / n, so three 1.1f had the mean 1.1000001;
// PyTorch's CPU kernel divides. A large negative correction made var's divisor a number past
// f32, refused as lazy::div's; PyTorch's quotient is 0.
TEST(ApiEdges, MeanIsAQuotientAndVarTakesAnyCorrection) {
  for (const auto& [value, count] : {std::pair{1.1f, 3}, {0.1f, 3}, {5.5f, 7}, {0.7f, 10}}) {
    EXPECT_EQ(lazy::mean(lazy::full({count}, value)).item<float>(), value) << value;
    EXPECT_EQ(lazy::mean(lazy::full({2, count}, value), 1).to_vector<float>(),
              std::vector<float>(2, value));
  }
  const Tensor x = lazy::arange(1, 4, 1, DType::f32);
  EXPECT_EQ(lazy::var(x, {}, -1e300).item<float>(), 0.0f);
  EXPECT_EQ(lazy::std(x, {}, -1e300).item<float>(), 0.0f);
  EXPECT_FLOAT_EQ(lazy::var(x, {}, -1e30).item<float>(), 2e-30f);
  // Found by torch_check: x minus one element of its row overflowed, so this was NaN.
  const Tensor far_apart = lazy::from_data<float>({3e38f, -3e38f, -3e38f, 1e38f}, {2, 2});
  EXPECT_EQ(lazy::std(far_apart, {}).item<float>(), INFINITY);
  EXPECT_EQ(lazy::var(far_apart, 1).to_vector<float>(), (std::vector<float>{INFINITY, INFINITY}));
  EXPECT_FLOAT_EQ(lazy::var(lazy::from_data<float>({3e18f, -3e18f, -3e18f}, {3})).item<float>(),
                  1.2e37f);
  // Squares of the differences themselves, not of their halves: 2^-146 is an f32.
  EXPECT_FLOAT_EQ(lazy::std(lazy::from_data<float>({0, 0x1p-73f}, {2})).item<float>(),
                  float(0x1p-73 / std::sqrt(2.0)));
}

// Found in review: top-k of a 0-d tensor with a bad k named the [1] it is computed as.
TEST(ApiEdges, TopKOfAZeroDimensionalTensorNamesItsOneElement) {
  const std::string message =
      message_of<lazy::ValueError>([] { lazy::topk(lazy::full({}, 2.5f), 2); });
  EXPECT_THAT(message, HasSubstr("k = 2 is outside [0, 1] for a 0-d tensor"));
  EXPECT_THAT(message, Not(HasSubstr("[1]")));
}

// Found in review: integers went to bf16 in one rounding, where PyTorch's casts go through f32
// (2^24 + 2^16 + 1 is 2^24 there, 2^24 + 2^17 in one rounding); the reference's maximum of -0 and
// +0 was the first operand, where the GPU's (and PyTorch's CUDA) is +0.
TEST(ApiEdges, IntegersGoToBf16ThroughF32AndZerosAreOrdered) {
  const Tensor ints = lazy::from_data(std::vector<std::int32_t>{16842753, -16842753, 257}, {3});
  const std::vector<float> expected{16777216.0f, -16777216.0f, 256.0f};
  EXPECT_EQ(ints.to(DType::bf16).to_vector<float>(), expected);
  EXPECT_EQ((ints + lazy::zeros({}, DType::bf16)).to_vector<float>(), expected);
  EXPECT_EQ(ints.to(DType::i64).to(DType::bf16).to_vector<float>(), expected);

  const Tensor zeros = lazy::from_data(std::vector<float>{-0.0f, 0.0f}, {2});
  const Tensor swapped = lazy::from_data(std::vector<float>{0.0f, -0.0f}, {2});
  for (const Tensor& z : {lazy::maximum(zeros, swapped), lazy::max(zeros.reshape({1, 2}), 1)})
    for (float v : z.to_vector<float>()) EXPECT_FALSE(std::signbit(v)) << "max gave -0";
  for (const Tensor& z : {lazy::minimum(zeros, swapped), lazy::min(swapped.reshape({1, 2}), 1)})
    for (float v : z.to_vector<float>()) EXPECT_TRUE(std::signbit(v)) << "min gave +0";
}

// Found in review: clamp's bad bounds were reported as lazy::maximum's or lazy::minimum's, and
// bool was clamped as bool, which PyTorch's kernels do not take (with integer bounds it is i64).
TEST(ApiEdges, ClampNamesItselfInErrorsAndRefusesBool) {
  const Tensor x = lazy::zeros({2});
  EXPECT_THAT(message_of<lazy::ShapeError>([&] { lazy::clamp(x, lazy::zeros({3}), 1.0); }),
              HasSubstr("lazy::clamp"));
  EXPECT_THAT(message_of<lazy::ValueError>(
                  [] { lazy::clamp(lazy::zeros({2}, DType::i32), std::int64_t(1) << 40, 1); }),
              HasSubstr("lazy::clamp"));
  EXPECT_THAT(message_of<lazy::DTypeError>(
                  [] { lazy::clamp(lazy::zeros({2}, DType::bool_), false, true); }),
              HasSubstr("lazy::clamp: x and its bounds are bool"));
  EXPECT_EQ(lazy::clamp(lazy::arange(0, 4, 1, DType::f32), 1.0, 2.0).to_vector<float>(),
            (std::vector<float>{1, 1, 2, 2}));
}

// Found in review: size(axis) of a tensor pending on another thread was refused, where shape(),
// rank() and numel() answer (a shape never changes).
TEST(ApiEdges, SizeOfATensorPendingOnAnotherThreadIsKnown) {
  Tensor pending;
  std::thread([&] { pending = lazy::ones({3, 4}) * 2.0f; }).join();
  EXPECT_EQ(pending.size(0), 3);
  EXPECT_EQ(pending.size(-1), 4);
  EXPECT_EQ(pending.shape()[1], 4);
}

// Found in review: the reference added scatter sums in double, so it kept what f32 (the GPU,
// PyTorch) loses: 3e38 + 3e38 - 3e38 was 3e38, 1e8 + 1 - 1e8 was 1.
TEST(ApiEdges, ScatterSumsAddInF32InTheOrderOfPositions) {
  const auto f32 = [](std::vector<float> v) {
    const std::int64_t n = std::int64_t(v.size());
    return lazy::from_data(v, {n});
  };
  const Tensor twice = lazy::from_data(std::vector<std::int64_t>{0, 0}, {2});
  EXPECT_EQ(lazy::index_add(f32({3e38f}), 0, twice, f32({3e38f, -3e38f})).item<float>(), INFINITY);
  EXPECT_EQ(lazy::scatter_add(f32({1e8f}), 0, twice, f32({1, -1e8f})).item<float>(), 0.0f);
  EXPECT_EQ(lazy::scatter_add(f32({1}), 0, twice, f32({0x1p-24f, 0x1p-24f})).item<float>(), 1.0f);
  const Tensor thrice = lazy::from_data(std::vector<std::int64_t>{0, 0, 0}, {3});
  EXPECT_EQ(lazy::scatter_add(lazy::zeros({1}, DType::f16), 0, thrice,
                              f32({2048, 1, 0x1p-13f}).to(DType::f16))
                .item<float>(),
            2048.0f);
}

// Found in review: cat's sizes along the axis were added unchecked: 32 tensors of 2^59 elements
// wrapped to [0], and 16 made a "negative size".
TEST(ApiEdges, CatRefusesSizesThatAddUpPastTheMost) {
  const Tensor half = lazy::zeros({std::int64_t(1) << 59});
  for (std::size_t parts : {16u, 32u}) {
    EXPECT_THAT(
        message_of<lazy::ShapeError>([&] { (void)lazy::cat(std::vector<Tensor>(parts, half)); }),
        HasSubstr("add up to more than 2^60"));
  }
  const Tensor wide = lazy::zeros({0, std::int64_t(1) << 59});
  EXPECT_THROW((void)lazy::cat(std::vector<Tensor>(32, wide), 1), lazy::ShapeError);
  EXPECT_EQ(lazy::cat(std::vector<Tensor>(2, half)).size(0), std::int64_t(1) << 60);
}

// Found in review: these messages named shapes the user never wrote: take_along_axis's with the
// axis set to 1, scatter of a number a "src", index_add of 0-d tensors their [1] reshapes.
TEST(ApiEdges, IndexingErrorsNameTheShapesTheUserWrote) {
  const Tensor x = lazy::zeros({2, 3});
  const Tensor index = lazy::zeros({3, 1}, DType::i64);
  const std::string taken =
      message_of<lazy::ShapeError>([&] { (void)lazy::take_along_axis(x, index, 1); });
  EXPECT_THAT(taken, HasSubstr("x of shape [2, 3] and index of shape [3, 1] differ along axis 0"));
  const std::string scattered =
      message_of<lazy::ShapeError>([&] { (void)lazy::scatter(x, 1, index, 1.0); });
  EXPECT_THAT(scattered, HasSubstr("index of shape [3, 1] is larger than x of shape [2, 3]"));
  EXPECT_THAT(scattered, Not(HasSubstr("src")));
  const std::string added = message_of<lazy::ShapeError>([] {
    (void)lazy::index_add(lazy::zeros({}), 0, lazy::zeros({2}, DType::i64), lazy::zeros({}));
  });
  EXPECT_THAT(added, HasSubstr("a 0-d x and src take an index of one element, got shape [2]"));
}

// Found in review: doubles went to f16 and bf16 in one rounding, where PyTorch's tensor() and
// full() go through f32 (1 + 2^-11 + 2^-40 is a tie in f32, which f16 rounds to even: 1).
TEST(ApiEdges, DoublesGoToHalfPrecisionThroughF32) {
  const double near_tie = 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(lazy::from_data(std::vector<double>{near_tie}, {1}, DType::f16).item<float>(), 1.0f);
  EXPECT_EQ(lazy::full({1}, near_tie, DType::f16).item<float>(), 1.0f);
  const double bf16_tie = 1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(lazy::from_data(std::vector<double>{bf16_tie}, {1}, DType::bf16).item<float>(), 1.0f);
  EXPECT_EQ(lazy::full({1}, bf16_tie, DType::bf16).item<float>(), 1.0f);
  EXPECT_EQ(lazy::full({1}, 1 + std::ldexp(1.0, -10), DType::f16).item<float>(),
            1 + std::ldexp(1.0f, -10));  // exactly held: kept
}

// Found in review: Shape's [] read outside its array for a negative or too large axis; a
// negative one counts from the end now, as size(axis) does, and one out of range is an AxisError.
TEST(ApiEdges, ShapeIndexingCountsFromTheEndAndChecksItsRange) {
  const lazy::Shape shape = lazy::zeros({2, 3}).shape();
  EXPECT_EQ(shape[-1], 3);
  EXPECT_EQ(shape[-2], 2);
  EXPECT_THAT(message_of<lazy::AxisError>([&] { (void)shape[2]; }),
              HasSubstr("axis 2 is out of range for [2, 3] (axes -2 to 1)"));
  EXPECT_THROW((void)shape[-3], lazy::AxisError);
  EXPECT_THROW((void)lazy::Shape()[0], lazy::AxisError);
}

// Found in review: numbers in messages had 6 digits, so 2147483648.0 (refused in i32) and
// 2147483647.5 (taken) read alike.
TEST(ApiEdges, MessagesShowNumbersAsWritten) {
  EXPECT_THAT(message_of<lazy::ValueError>([] { (void)lazy::full({2}, 2147483648.0, DType::i32); }),
              HasSubstr("2147483648 "));
  EXPECT_THAT(message_of<lazy::ValueError>(
                  [] { (void)lazy::full({1}, 3.4028235677973366e38 * 2, DType::f32); }),
              HasSubstr("6.805647135594673e+38"));
}

// Found in review: a bad index that only a gather's gradient reached was named scatter_add, an
// op the user never called.
TEST(ApiEdges, ABadIndexOnlyAGradientReachesNamesTheGatherItCameFrom) {
  const Tensor x = lazy::ones({3});
  const Tensor bad = lazy::from_data(std::vector<std::int64_t>{0, 5}, {2});
  const Tensor g = lazy::grad([&](std::span<const Tensor> t) {
    return lazy::sum(lazy::index_select(t[0], 0, bad));
  })({x})[0];
  const std::string message = message_of<lazy::IndexError>([&] { (void)g.to_vector<float>(); });
  EXPECT_THAT(message, HasSubstr("lazy::index_select (its gradient): index 5 is out of range"));
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{1, 0, 0}));
}

// Found in review: the same for scatters: a bad index that only src's gradient (or, for scatter,
// x's) reached was named gather or scatter.
TEST(ApiEdges, ABadIndexOnlyAScattersGradientReachesNamesThatScatter) {
  const Tensor bad = lazy::from_data(std::vector<std::int64_t>{0, 3}, {2});
  const Tensor weights = lazy::from_data(std::vector<float>{1, 2, 3}, {3});
  const auto src_gradient_message = [&](auto scatter) {
    const Tensor g = lazy::grad([&](std::span<const Tensor> t) {
      return lazy::sum(scatter(t[0], t[1]) * weights);
    })({lazy::zeros({3}), lazy::ones({2})})[1];
    return message_of<lazy::IndexError>([&] { (void)g.to_vector<float>(); });
  };
  EXPECT_THAT(src_gradient_message([&](const Tensor& x, const Tensor& src) {
                return lazy::scatter_add(x, 0, bad, src);
              }),
              HasSubstr("lazy::scatter_add (its gradient): index 3 is out of range"));
  EXPECT_THAT(src_gradient_message([&](const Tensor& x, const Tensor& src) {
                return lazy::index_add(x, 0, bad, src);
              }),
              HasSubstr("lazy::index_add (its gradient): index 3 is out of range"));
  EXPECT_THAT(src_gradient_message([&](const Tensor& x, const Tensor& src) {
                return lazy::scatter(x, 0, bad, src);
              }),
              HasSubstr("lazy::scatter (its gradient): index 3 is out of range"));
  const Tensor x_gradient = lazy::grad([&](std::span<const Tensor> t) {
    return lazy::sum(lazy::scatter(t[0], 0, bad, lazy::ones({2})) * weights);
  })({lazy::zeros({3})})[0];
  EXPECT_THAT(message_of<lazy::IndexError>([&] { (void)x_gradient.to_vector<float>(); }),
              HasSubstr("lazy::scatter (its gradient): index 3 is out of range"));
}

// Found in review: a host read inside a differentiated (or captured) function named only the
// call that gave the function; the line of the read is in the message now.
TEST(ApiEdges, AHostReadInsideGradSaysWhereItWasAsked) {
  const std::string message = message_of<lazy::RuntimeError>([] {
    (void)lazy::grad([](std::span<const Tensor> t) {
      const float v = lazy::sum(t[0]).item<float>();
      return lazy::sum(t[0]) * v;
    })({lazy::ones({3})});
  });
  EXPECT_THAT(message, HasSubstr("asked for a host read (item) at "));
  EXPECT_THAT(message, HasSubstr("test_api_edges.cpp:"));
  const std::string evaluated = message_of<lazy::RuntimeError>([] {
    (void)lazy::grad([](auto t) {
      lazy::eval({t[0] * 2.0f});
      return lazy::sum(t[0]);
    })({lazy::ones({3})});
  });
  EXPECT_THAT(evaluated, HasSubstr("asked for a host sync (lazy::eval) at "));
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
