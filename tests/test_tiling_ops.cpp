// repeat, tile, roll and pad against an index map written out on the host (each result element
// names the x element it copies, or the fill), for several dtypes, views as inputs, and fused
// neighbours; their gradients against central differences; their errors. Computed by whatever
// backend runs (the GPU when there is one).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "error_test_support.h"
#include "gradient_test_support.h"
#include "host_test_support.h"
#include "lazy/lazy.h"

namespace {

using lazy::DType;
using lazy::PadMode;
using lazy::Shape;
using lazy::Tensor;

using Index = std::vector<std::int64_t>;
// The x index a result index copies, or nothing for a fill.
using IndexMap = std::function<std::optional<Index>(const Index&)>;

// Distinct values 1, 2, ... in x's shape (each small enough for every dtype but bool).
std::vector<double> counting(const Shape& shape) {
  std::vector<double> values(std::size_t(shape.numel()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = double(i % 100 + 1);
  return values;
}

std::int64_t flat_of(const Index& index, const Shape& shape) {
  std::int64_t flat = 0;
  for (int a = 0; a < shape.rank(); ++a) flat = flat * shape[a] + index[std::size_t(a)];
  return flat;
}

// `got` (of `want_shape`) holds, at every index, x's element that `map` names, or `fill`.
void expect_copies(const Tensor& got, const Shape& want_shape, const std::vector<double>& x,
                   const Shape& x_shape, const IndexMap& map, double fill = 0) {
  ASSERT_EQ(got.shape(), want_shape);
  const std::vector<double> values = got.to_vector<double>();
  Index index(std::size_t(want_shape.rank()), 0);
  for (std::int64_t flat = 0; flat < want_shape.numel(); ++flat) {
    std::int64_t rest = flat;
    for (int a = want_shape.rank() - 1; a >= 0; --a) {
      index[std::size_t(a)] = rest % want_shape[a];
      rest /= want_shape[a];
    }
    const std::optional<Index> from = map(index);
    const double want = from ? x[std::size_t(flat_of(*from, x_shape))] : fill;
    ASSERT_EQ(values[std::size_t(flat)], want) << "element " << flat;
  }
}

std::int64_t modulo(std::int64_t a, std::int64_t n) {
  return ((a % n) + n) % n;
}

TEST(Repeat, CopiesEachAxisSideBySideAndAddsLeadingAxes) {
  for (DType dtype : {DType::f32, DType::i64, DType::f16}) {
    const Shape shape{2, 3};
    const std::vector<double> x = counting(shape);
    const Tensor t = lazy::from_data(x, shape, dtype);
    expect_copies(lazy::repeat(t, {2, 1, 2}), Shape{2, 2, 6}, x, shape, [](const Index& i) {
      return Index{i[1], i[2] % 3};
    });
    expect_copies(lazy::repeat(t, {3, 2}), Shape{6, 6}, x, shape, [](const Index& i) {
      return Index{i[0] % 2, i[1] % 3};
    });
    expect_copies(lazy::repeat(t, {1, 1}), shape, x, shape, [](const Index& i) { return i; });
  }
}

TEST(Repeat, TakesViewsAndFusesWithItsNeighbours) {
  const Shape shape{3, 4};
  const std::vector<double> x = counting(shape);
  // The transpose [4, 3] repeated, doubled after: x[j % 3, i % 4] * 2.
  const Tensor got = lazy::repeat(lazy::from_data(x, shape).transpose(0, 1), {2, 2}) * 2.0f;
  const std::vector<double> values = got.to_vector<double>();
  ASSERT_EQ(got.shape(), (Shape{8, 6}));
  for (std::int64_t i = 0; i < 8; ++i)
    for (std::int64_t j = 0; j < 6; ++j)
      EXPECT_EQ(values[std::size_t(i * 6 + j)], 2 * x[std::size_t((j % 3) * 4 + i % 4)]);
}

TEST(Repeat, ZeroCountsAndEmptyInputsGiveEmptyResults) {
  EXPECT_EQ(lazy::repeat(lazy::ones({2, 3}), {0, 2}).shape(), (Shape{0, 6}));
  EXPECT_EQ(lazy::repeat(lazy::ones({0, 3}), {2, 2}).shape(), (Shape{0, 6}));
  EXPECT_EQ(lazy::repeat(lazy::full({}, 7.0), {3}).to_vector<double>(),
            (std::vector<double>{7, 7, 7}));
}

TEST(Tile, PadsMissingCountsWithOnes) {
  const Shape shape{2, 3};
  const std::vector<double> x = counting(shape);
  const Tensor t = lazy::from_data(x, shape);
  expect_copies(lazy::tile(t, {2}), Shape{2, 6}, x, shape, [](const Index& i) {
    return Index{i[0], i[1] % 3};
  });
  expect_copies(lazy::tile(t, {2, 1, 1}), Shape{2, 2, 3}, x, shape, [](const Index& i) {
    return Index{i[1], i[2]};
  });
}

TEST(Roll, ShiftsAlongAxesWrappingAround) {
  const Shape shape{3, 5};
  const std::vector<double> x = counting(shape);
  for (DType dtype : {DType::f32, DType::i32, DType::bf16}) {
    const Tensor t = lazy::from_data(x, shape, dtype);
    expect_copies(lazy::roll(t, 2, 1), shape, x, shape, [](const Index& i) {
      return Index{i[0], modulo(i[1] - 2, 5)};
    });
    expect_copies(lazy::roll(t, {-1, 7}, {0, -1}), shape, x, shape, [](const Index& i) {
      return Index{modulo(i[0] + 1, 3), modulo(i[1] - 7, 5)};
    });
    // Named twice, the shifts add; a whole turn is x.
    expect_copies(lazy::roll(t, {1, 2}, {1, 1}), shape, x, shape, [](const Index& i) {
      return Index{i[0], modulo(i[1] - 3, 5)};
    });
    expect_copies(lazy::roll(t, 10, 1), shape, x, shape, [](const Index& i) { return i; });
  }
}

TEST(Roll, WithoutAxesRollsTheFlattenedTensor) {
  const Shape shape{3, 5};
  const std::vector<double> x = counting(shape);
  expect_copies(lazy::roll(lazy::from_data(x, shape), 4), shape, x, shape, [](const Index& i) {
    const std::int64_t from = modulo(i[0] * 5 + i[1] - 4, 15);
    return Index{from / 5, from % 5};
  });
  EXPECT_EQ(lazy::roll(lazy::zeros({0, 2}), 3).shape(), (Shape{0, 2}));
}

// The x index pad's `mode` copies into position j of an axis of `extent` padded by `before`.
std::optional<std::int64_t> padded_source(std::int64_t j, std::int64_t before, std::int64_t extent,
                                          PadMode mode) {
  const std::int64_t s = j - before;
  if (s >= 0 && s < extent) return s;
  switch (mode) {
    case PadMode::constant:
      return std::nullopt;
    case PadMode::reflect:
      return s < 0 ? -s : 2 * (extent - 1) - s;
    case PadMode::replicate:
      return s < 0 ? 0 : extent - 1;
    case PadMode::circular:
      return modulo(s, extent);
  }
  return std::nullopt;
}

TEST(Pad, EachModeFillsTheBorderAsPyTorchs) {
  const Shape shape{2, 3, 4};
  const std::vector<double> x = counting(shape);
  for (PadMode mode :
       {PadMode::constant, PadMode::reflect, PadMode::replicate, PadMode::circular}) {
    for (DType dtype : {DType::f32, DType::i64, DType::f16}) {
      SCOPED_TRACE(testing::Message() << "mode " << int(mode) << " dtype " << int(dtype));
      const Tensor t = lazy::from_data(x, shape, dtype);
      // The last axis by (3, 1), the one before by (2, 0); the first is left alone.
      const std::optional<lazy::Scalar> value =
          mode == PadMode::constant ? std::optional<lazy::Scalar>(-5) : std::nullopt;
      expect_copies(
          lazy::pad(t, {3, 1, 2, 0}, mode, value), Shape{2, 5, 8}, x, shape,
          [&](const Index& i) -> std::optional<Index> {
            const auto row = padded_source(i[1], 2, 3, mode);
            const auto column = padded_source(i[2], 3, 4, mode);
            if (!row || !column) return std::nullopt;
            return Index{i[0], *row, *column};
          },
          -5);
    }
  }
}

TEST(Pad, NegativeConstantPaddingCrops) {
  const Shape shape{3, 6};
  const std::vector<double> x = counting(shape);
  // Last axis: 2 cropped before, 1 added after; first axis: 1 added before, 1 cropped after.
  expect_copies(lazy::pad(lazy::from_data(x, shape), {-2, 1, 1, -1}), Shape{3, 5}, x, shape,
                [](const Index& i) -> std::optional<Index> {
                  if (i[0] == 0 || i[1] == 4) return std::nullopt;
                  return Index{i[0] - 1, i[1] + 2};
                });
  EXPECT_EQ(lazy::pad(lazy::ones({4}), {-4, 0}).shape(), (Shape{0}));
}

TEST(Pad, NegativePaddingCropsFirstInEveryMode) {
  // PyTorch 2.11 on [1, 2, 3]: reflect (-1, 1) [2, 3, 2], replicate (-1, 2) [2, 3, 3, 3],
  // circular (-1, 2) [2, 3, 2, 3].
  const Tensor t = lazy_test::f32_values({1, 2, 3});
  EXPECT_EQ(lazy::pad(t, {-1, 1}, PadMode::reflect).to_vector<double>(),
            (std::vector<double>{2, 3, 2}));
  EXPECT_EQ(lazy::pad(t, {-1, 2}, PadMode::replicate).to_vector<double>(),
            (std::vector<double>{2, 3, 3, 3}));
  EXPECT_EQ(lazy::pad(t, {-1, 2}, PadMode::circular).to_vector<double>(),
            (std::vector<double>{2, 3, 2, 3}));
  EXPECT_EQ(lazy::pad(t, {1, -2}, PadMode::circular).to_vector<double>(),
            (std::vector<double>{1, 1}));
}

TEST(Pad, TakesViewsAndFusesWithItsNeighbours) {
  const Shape shape{4, 3};
  const std::vector<double> x = counting(shape);
  // The transpose [3, 4], reflected by 2 on each side, plus 1.
  const Tensor got =
      lazy::pad(lazy::from_data(x, shape).transpose(0, 1), {2, 2}, PadMode::reflect) + 1.0f;
  const std::vector<double> values = got.to_vector<double>();
  ASSERT_EQ(got.shape(), (Shape{3, 8}));
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 8; ++j) {
      const std::int64_t k = *padded_source(j, 2, 4, PadMode::reflect);
      EXPECT_EQ(values[std::size_t(i * 8 + j)], x[std::size_t(k * 3 + i)] + 1);
    }
}

TEST(Pad, RefusesBadPaddingAtTheCall) {
  const Tensor t = lazy::ones({2, 3});
  EXPECT_THROW((void)lazy::pad(t, {1}), lazy::ShapeError);                 // not pairs
  EXPECT_THROW((void)lazy::pad(t, {1, 1, 1, 1, 1, 1}), lazy::ShapeError);  // 3 axes of 2
  EXPECT_THROW((void)lazy::pad(t, {-2, -2}), lazy::ShapeError);            // crops past the axis
  EXPECT_THROW((void)lazy::pad(t, {3, 0}, PadMode::reflect), lazy::ShapeError);
  EXPECT_THROW((void)lazy::pad(t, {4, 0}, PadMode::circular), lazy::ShapeError);
  EXPECT_THROW((void)lazy::pad(lazy::ones({2, 0}), {1, 0}, PadMode::replicate), lazy::ShapeError);
  EXPECT_THROW((void)lazy::pad(t, {-1, 2}, PadMode::reflect), lazy::ShapeError);  // 2 of 2 left
  EXPECT_THROW((void)lazy::pad(t, {-2, 2}, PadMode::circular), lazy::ShapeError);
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_THROW((void)lazy::pad(t, {kMin, kMin}, PadMode::circular), lazy::ShapeError);  // no wrap
  EXPECT_THROW((void)lazy::pad(t, {std::int64_t(1) << 62, std::int64_t(1) << 62}),
               lazy::ShapeError);
  EXPECT_THROW((void)lazy::pad(t, {1, 1}, PadMode::reflect, 2.0), lazy::ValueError);
  EXPECT_THROW((void)lazy::pad(t.to(DType::i32), {1, 1}, PadMode::constant, 1e10),
               lazy::ValueError);
}

TEST(RepeatAndRoll, RefuseBadArgumentsAtTheCall) {
  const Tensor t = lazy::ones({2, 3});
  EXPECT_THROW((void)lazy::repeat(t, {2}), lazy::ShapeError);  // fewer counts than axes
  EXPECT_THROW((void)lazy::repeat(t, {2, -1}), lazy::ValueError);
  EXPECT_THAT(lazy_test::message_of<lazy::ValueError>([&] { (void)lazy::tile(t, {-1}); }),
              testing::HasSubstr("lazy::tile"));
  EXPECT_THROW((void)lazy::repeat(t, std::vector<std::int64_t>(9, 1)), lazy::ShapeError);
  EXPECT_THROW((void)lazy::roll(t, {1, 2}, {0}), lazy::ValueError);
  EXPECT_THROW((void)lazy::roll(t, {1, 2}), lazy::ValueError);  // no axes: one shift
  EXPECT_THROW((void)lazy::roll(t, 1, 2), lazy::AxisError);
}

TEST(TilingOps, GradientsMatchCentralDifferences) {
  const lazy_test::Input x = lazy_test::input({3, 4}, 5);
  lazy_test::expect_gradients_match(
      [](std::span<const Tensor> v) {
        return lazy::repeat(v[0], {2, 1, 3});
      },
      {x}, "repeat");
  lazy_test::expect_gradients_match(
      [](std::span<const Tensor> v) {
        return lazy::roll(v[0], {1, -2}, {0, 1});
      },
      {x}, "roll");
  for (PadMode mode :
       {PadMode::constant, PadMode::reflect, PadMode::replicate, PadMode::circular}) {
    lazy_test::expect_gradients_match(
        [&](std::span<const Tensor> v) {
          return lazy::pad(v[0], {2, 3, 1, 2}, mode);
        },
        {x}, "pad mode " + std::to_string(int(mode)));
  }
}

// Found by torch_check (seed 17970, program 24): the copies' cotangents were added in bf16, a
// rounding per piece, where PyTorch's backward kernels add them in f32 and round once.
TEST(TilingOps, HalfGradientsAddTheCopiesInF32AndRoundOnce) {
  const auto gradient_of = [](const lazy::Differentiable& f, const Shape& shape,
                              std::vector<float> cotangent, const Shape& result) {
    const Tensor x = lazy::ones(shape, DType::bf16);
    const Tensor g = lazy::from_data(cotangent, result).to(DType::bf16);
    return lazy::vjp(f, {&x, 1}, {&g, 1}).gradients[0].to_vector<float>();
  };
  // The exact sum is -0.0283203125; the border after x alone rounded to -0.34765625 in bf16.
  const std::vector<float> pad_gradient = gradient_of(
      [](std::span<const Tensor> v) {
        return std::vector<Tensor>{lazy::pad(v[0], {1, 3}, PadMode::replicate)};
      },
      {1}, {0.35546875f, -0.03515625f, -0.76953125f, 0.65234375f, -0.2314453125f}, {5});
  EXPECT_EQ(pad_gradient, std::vector<float>{-0.0283203125f});
  // One row's sum, 1 + 2^-8, is a tie that rounds to 1 in bf16; the whole sum is 2^-7.
  const std::vector<float> repeat_gradient = gradient_of(
      [](std::span<const Tensor> v) {
        return std::vector<Tensor>{lazy::repeat(v[0], {2, 3})};
      },
      {1, 1}, {1, 0x1p-8f, 0, -1, 0x1p-8f, 0}, {2, 3});
  EXPECT_EQ(repeat_gradient, std::vector<float>{0x1p-7f});
}

}  // namespace
