// cat and stack on the GPU against the reference evaluator on fresh random inputs: every dtype,
// ranks 1 to 5, every axis, empty parts, views on both sides, and kernel counts for producers
// joined in the same sync and for copies of computed tensors.
#include <gtest/gtest.h>

#include <lazy/lazy.h>

#include "gpu_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::expect_matches_reference;
using lazy_test::random_input;

class GpuJoining : public lazy_test::GpuTest {};

TEST_F(GpuJoining, CatMatchesTheReferenceForEveryDtypeRankAndAxis) {
  const std::vector<Shape> shapes = {{37}, {9, 13}, {5, 6, 7}, {3, 4, 5, 6}, {2, 3, 2, 3, 5}};
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i64, DType::bool_}) {
    for (const Shape& shape : shapes) {
      for (int axis = 0; axis < shape.rank(); ++axis) {
        std::vector<Tensor> parts;
        for (std::int64_t extent :
             {std::int64_t(3), std::int64_t(0), shape[axis], std::int64_t(1)}) {
          Shape s = shape;
          s[axis] = extent;
          parts.push_back(random_input(dtype, s));
        }
        const std::string what = std::string(lazy::dtype_name(dtype)) + " " + shape.to_string() +
                                 " axis " + std::to_string(axis);
        expect_matches_reference([&] { return std::vector<Tensor>{lazy::cat(parts, axis)}; },
                                 what + " copies");
        if (dtype == DType::bool_) continue;
        expect_matches_reference(
            [&] {
              std::vector<Tensor> produced;
              for (const Tensor& p : parts) produced.push_back(p * p - p);
              return std::vector<Tensor>{lazy::cat(produced, axis) + 1};
            },
            what + " producers");
      }
    }
  }
}

TEST_F(GpuJoining, PartsAndTheResultAreReadThroughViews) {
  Tensor x = random_input(DType::f32, {24, 40});
  Tensor row = random_input(DType::f32, {40});
  Tensor y = random_input(DType::bf16, {17, 24});
  expect_matches_reference(
      [&] {
        Tensor transposed = x.transpose(0, 1);  // [40, 24]
        Tensor sliced = x.slice(1, 1, 40, 2);   // [24, 20]
        Tensor broadcast = row.reshape({40, 1}).expand({40, 5});
        Tensor a = lazy::cat({transposed, y.to(DType::f32) * 2, transposed.slice(0, 0, 3)}, 0);
        Tensor b = lazy::cat({broadcast, transposed.slice(1, 4, 24, 3)}, 1);  // [40, 12]
        // The result read through a transpose and a slice by its consumer.
        Tensor c = lazy::exp(lazy::cat({sliced, sliced * 3.0f}, 1).transpose(0, 1).slice(0, 5, 37));
        return std::vector<Tensor>{a, b, c, lazy::stack({sliced, -sliced}, 1)};
      },
      "views");
}

TEST_F(GpuJoining, ProducersInTheSameSyncAndCopiesAreOneKernel) {
  std::vector<Tensor> inputs;
  for (int k = 0; k < 4; ++k) inputs.push_back(random_input(DType::f32, {256, 64}));
  // The producers are not held: each is computed straight into its part.
  auto produced = [&] {
    std::vector<Tensor> parts;
    for (const Tensor& x : inputs) parts.push_back(lazy::sigmoid(x) * 2.0f + x);
    return lazy::cat(parts, 0);
  };
  lazy::reset_stats();
  Tensor joined = produced();
  lazy::eval({joined});
  EXPECT_EQ(lazy::stats().kernel_launches, 1);

  std::vector<Tensor> uneven{random_input(DType::f16, {7, 5}), random_input(DType::f16, {7, 1}),
                             random_input(DType::f16, {7, 130})};
  lazy::reset_stats();
  Tensor copied = lazy::cat(uneven, 1);
  lazy::eval({copied});
  EXPECT_EQ(lazy::stats().kernel_launches, 1);
  expect_matches_reference([&] { return std::vector<Tensor>{produced()}; }, "produced");
  expect_matches_reference([&] { return std::vector<Tensor>{lazy::cat(uneven, 1)}; }, "copied");
}

TEST_F(GpuJoining, ResultsUsedTwiceAndAfterReductionsStayRight) {
  Tensor x = random_input(DType::f32, {33, 65});
  expect_matches_reference(
      [&] {
        Tensor joined = lazy::cat({x, lazy::exp(x)}, 1);
        Tensor both = joined * lazy::cat({x * 0.5f, x}, 1);  // the second one is written first
        Tensor total = lazy::sum(joined, {1});
        Tensor soft = lazy::softmax(lazy::cat({x, x.slice(1, 0, 7)}, 1), -1);
        return std::vector<Tensor>{both, total, soft, joined};
      },
      "twice");
}

// lazyfuse-fuzz seeds 14105 (program 199) and 14101 (program 133, the GPU context lost): a
// concatenation nested in another's part took the outer part's index, reading the wrong input or
// past the inner one's parts.
TEST_F(GpuJoining, NestedConcatenationsReadTheirOwnParts) {
  Tensor a = random_input(DType::i64, {1, 3});
  Tensor b = random_input(DType::i64, {1, 240});
  Tensor c = random_input(DType::f32, {3, 1});
  expect_matches_reference(
      [&] {
        Tensor inner = lazy::cat({a, b, a * 2, a + 1}, 1);
        Tensor outer = lazy::cat({a, inner}, 1);
        Tensor stacked = lazy::stack({c.slice(0, 0, 1), c.slice(0, 1, 2) * 2.0f}, -2);  // [2, 1]
        return std::vector<Tensor>{outer, lazy::cat({stacked, stacked * 3.0f, stacked}, 1)};
      },
      "nested");
}

// Several concatenations in one kernel (rolls, pads, cats of produced values), each branching on
// its parts where it is read: grids whose groups of elements straddle the parts' ends, a tail
// past the last whole group, and a multi-index walk (a transposed operand).
TEST_F(GpuJoining, SeveralConcatenationsInOneKernelReadTheirOwnParts) {
  for (DType dtype : {DType::f32, DType::bf16, DType::i32}) {
    for (const Shape& shape : {Shape{37, 1001}, Shape{64, 256}, Shape{3, 5}}) {
      Tensor u = random_input(dtype, shape);
      Tensor w = random_input(dtype, {shape[1], shape[0]});
      const std::string what = std::string(lazy::dtype_name(dtype)) + " " + shape.to_string();
      expect_matches_reference(
          [&] {
            Tensor stencil = lazy::roll(u, 1, 0) + lazy::roll(u, -1, 0) + lazy::roll(u, 3, 1) +
                             lazy::roll(w.transpose(0, 1), -1, 1) - u;
            Tensor padded = lazy::pad(u, {1, 2, 2, 1}, lazy::PadMode::replicate);
            Tensor clamped = padded.slice(0, 0, shape[0]).slice(1, 1, shape[1] + 1) +
                             padded.slice(0, 3, shape[0] + 3).slice(1, 3, shape[1] + 3) * u;
            Tensor joined = lazy::cat({u * 2, u + 1}, 0) - lazy::cat({u, w.transpose(0, 1)}, 0);
            return std::vector<Tensor>{stencil, clamped, joined};
          },
          what);
    }
  }
}

// A kernel of several concatenations walks groups of consecutive elements: the loads every
// element reads are one vector a group, and so is a concatenation whose groups lie in one part
// (rolls along rows); the rest read element by element (rolls along columns, a pad's constant, a
// cat of produced values). Grids large enough for groups (smaller ones take an element a
// thread), whose rows hold whole groups or not, a tail, a strided operand, element sizes of 1 to
// 8 bytes.
TEST_F(GpuJoining, SeveralConcatenationsReadGroupsInOnePartAsVectors) {
  for (DType dtype : {DType::f32, DType::bf16, DType::i64, DType::bool_}) {
    for (const Shape& shape : {Shape{600, 1024}, Shape{270, 1004}, Shape{131, 2051}, Shape{5, 7}}) {
      Tensor u = random_input(dtype, shape);
      Tensor w = random_input(dtype, {shape[1], shape[0]});
      const std::string what = std::string(lazy::dtype_name(dtype)) + " " + shape.to_string();
      if (dtype == DType::bool_) {
        expect_matches_reference(
            [&] {
              return std::vector<Tensor>{lazy::roll(u, 1, 0) ^ lazy::roll(u, -2, 0) ^
                                         (lazy::roll(u, 1, 1) & u)};
            },
            what);
        continue;
      }
      expect_matches_reference(
          [&] {
            Tensor heat = lazy::roll(u, 1, 0) + lazy::roll(u, -1, 0) + lazy::roll(u, 1, 1) +
                          lazy::roll(u, -1, 1) - u * 4;
            Tensor rows =
                lazy::roll(u, 2, 0) - lazy::roll(w.transpose(0, 1), -3, 0) + w.transpose(0, 1);
            Tensor shifted = lazy::pad(u, {0, 0, 1, 1}).slice(0, 0, shape[0]) + lazy::roll(u, 1, 0);
            Tensor doubled = lazy::cat({u * 2, u + 1}, 0);
            Tensor joined = lazy::roll(doubled, 3, 0) - lazy::cat({u, u}, 0);
            return std::vector<Tensor>{heat, rows, shifted, joined};
          },
          what);
    }
  }
}

}  // namespace
