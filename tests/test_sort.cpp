// sort, argsort and top-k of more than the top-k kernel keeps, on the host path against
// std::stable_sort (both directions, every axis, ties in order of position, NaN last ascending and
// first descending), and the sort kernel's structure without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include <lazy/lazy.h>

#include "codegen_test_support.h"
#include "host_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::random_floats;

// The positions that stably sort `row`, NaN last ascending and first descending.
std::vector<std::int64_t> stable_order(const std::vector<float>& row, bool descending) {
  std::vector<std::int64_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](std::int64_t j) {
    const float v = row[std::size_t(j)];
    return std::isnan(v) ? std::numeric_limits<float>::infinity() : v;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    const bool a_nan = std::isnan(row[std::size_t(a)]), b_nan = std::isnan(row[std::size_t(b)]);
    if (a_nan != b_nan) return descending ? a_nan : b_nan;
    return descending ? key(a) > key(b) : key(a) < key(b);
  });
  return order;
}

TEST(Sort, SortsEveryRowAlongAnyAxisStably) {
  std::vector<float> values = random_floats(3 * 7 * 4, 3);
  for (float& v : values) v = std::round(v * 2);  // ties
  values[5] = std::numeric_limits<float>::quiet_NaN();
  Tensor x = lazy::from_data(values, {3, 7, 4});
  for (bool descending : {false, true}) {
    lazy::ValuesAndIndices sorted = lazy::sort(x, -2, descending);
    Tensor positions = lazy::argsort(x, 1, descending);
    EXPECT_EQ(sorted.values.shape(), x.shape());
    const std::vector<float> got = sorted.values.to_vector<float>();
    const std::vector<std::int64_t> at = sorted.indices.to_vector<std::int64_t>();
    EXPECT_EQ(positions.to_vector<std::int64_t>(), at);
    for (int o = 0; o < 3; ++o) {
      for (int n = 0; n < 4; ++n) {
        std::vector<float> row;
        for (int j = 0; j < 7; ++j) row.push_back(values[std::size_t((o * 7 + j) * 4 + n)]);
        const std::vector<std::int64_t> order = stable_order(row, descending);
        for (int j = 0; j < 7; ++j) {
          const std::size_t e = std::size_t((o * 7 + j) * 4 + n);
          EXPECT_EQ(at[e], order[std::size_t(j)]) << o << " " << n << " " << j;
          const float want = row[std::size_t(order[std::size_t(j)])];
          if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(got[e]));
          } else {
            EXPECT_EQ(got[e], want);
          }
        }
      }
    }
  }
}

TEST(Sort, IntegersBoolsZeroDAndEmptyAxes) {
  Tensor ints = lazy::from_data<std::int32_t>({4, -2, 4, 0, -2}, {5});
  lazy::ValuesAndIndices sorted = lazy::sort(ints, 0, true);
  EXPECT_EQ(sorted.values.dtype(), DType::i32);
  EXPECT_EQ(sorted.values.to_vector<std::int32_t>(), (std::vector<std::int32_t>{4, 4, 0, -2, -2}));
  EXPECT_EQ(sorted.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 2, 3, 1, 4}));
  Tensor flags = lazy::from_data<float>({1, 0, 1, 0}, {4}) > 0.5f;
  EXPECT_EQ(lazy::argsort(flags).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 3, 0, 2}));
  lazy::ValuesAndIndices scalar = lazy::sort(lazy::full({}, 3.0f));
  EXPECT_EQ(scalar.values.shape(), Shape({}));
  EXPECT_EQ(scalar.indices.item<std::int64_t>(), 0);
  EXPECT_EQ(lazy::argsort(lazy::zeros({3, 0})).shape(), Shape({3, 0}));
  EXPECT_THROW(lazy::sort(ints, 1), lazy::AxisError);
  EXPECT_THROW(lazy::argsort(Tensor()), lazy::ValueError);
}

TEST(Sort, TopKKeepsAnyNumberOfElements) {
  const std::vector<float> values = random_floats(2 * 3000, 4);
  Tensor x = lazy::from_data(values, {2, 3000});
  lazy::ValuesAndIndices best = lazy::topk(x, 2500, 1, false);
  const std::vector<std::int64_t> at = best.indices.to_vector<std::int64_t>();
  for (int r = 0; r < 2; ++r) {
    const std::vector<float> row(values.begin() + r * 3000, values.begin() + (r + 1) * 3000);
    const std::vector<std::int64_t> order = stable_order(row, false);
    EXPECT_TRUE(std::equal(order.begin(), order.begin() + 2500, at.begin() + r * 2500));
  }
}

TEST(SortKernels, LongRowsAreRadixSortedThroughScratchWithTheProducingWorkInline) {
  struct Case {
    std::int64_t rows, extent;
    int launches;  // a radix sort: clear, count, and a pass per 8 bits of an f32's order key
  };
  for (const Case c : {Case{3, 300, 1}, Case{3, 2048, 1}, Case{3, 5000, 6}, Case{2, 70001, 6},
                       Case{300, 5000, 6}}) {
    Tensor x =
        lazy::from_data(random_floats(std::size_t(c.rows * c.extent), 5), {c.rows, c.extent});
    lazy::ValuesAndIndices sorted = lazy::sort(x * 2.0f, -1, true);
    lazy_test::Generated g = lazy_test::generate_pending();
    lazy_test::expect_compiles(g);
    ASSERT_EQ(g.kernels.size(), 1u) << g.partition.describe();
    const lazy::codegen::GeneratedKernel& kernel = g.kernels[0];
    EXPECT_NE(kernel.source.find("lz_mul"), std::string::npos) << kernel.source;
    // Rows of at most 1024 go through the top-k kernel, of at most a tile through a sort in
    // shared memory; longer ones are radix sorted.
    EXPECT_EQ(kernel.source.find("lz_sort_candidates") != std::string::npos, c.extent <= 2048)
        << c.extent;
    EXPECT_EQ(kernel.source.find("lz_radix_places") != std::string::npos, c.extent > 2048)
        << c.extent;
    EXPECT_EQ(kernel.launches, c.launches) << c.rows << " x " << c.extent;
    // Rows longer than a tile need scratch for their passes; shorter ones sort in shared memory.
    std::uint64_t scratch = 0;
    for (const auto& arg : kernel.args)
      if (arg.kind == lazy::codegen::ArgSource::Kind::scratch) scratch += arg.value;
    EXPECT_EQ(scratch > 0, c.extent > 2048) << c.extent;
    // Two buffers of 4-byte keys and positions, a look-back word per digit of 8 bytes a tile of
    // 4096 (2048 for 8-byte keys: at most a byte an element), a row's digit counts of 1 KiB a
    // pass, and a few words.
    const std::int64_t tiles = (c.extent + 2047) / 2048;
    EXPECT_LE(scratch, std::uint64_t(c.rows * (c.extent * 16 + tiles * 2048 + 4 * 1024 + 8) + 16))
        << c.rows << " x " << c.extent;
    lazy::sync();
  }
}

TEST(SortKernels, RadixPassesCoverTheBitsOfTheDtypesKeys) {
  // f16 and bf16 widen to f32 with 13 and 16 bits that tell no values apart.
  const std::vector<std::pair<DType, int>> passes = {{DType::f32, 4},  {DType::f16, 3},
                                                     {DType::bf16, 2}, {DType::i32, 4},
                                                     {DType::i64, 8},  {DType::bool_, 4}};
  for (const auto& [dtype, count] : passes) {
    Tensor x = lazy::from_data(random_floats(2 * 3000, 7), {2, 3000}).to(dtype);
    lazy::eval({x});
    lazy::ValuesAndIndices sorted = lazy::sort(x);
    lazy_test::Generated g = lazy_test::generate_pending();
    ASSERT_EQ(g.kernels.size(), 1u) << g.partition.describe();
    EXPECT_EQ(g.kernels[0].launches, count + 2) << lazy::dtype_name(dtype);
    lazy::sync();
  }
}

TEST(SortKernels, EveryDtypeCompiles) {
  for (DType dtype : lazy_test::kAllDTypes) {
    Tensor x = lazy::from_data(random_floats(2 * 3000, 6), {2, 3000}).to(dtype);
    lazy::ValuesAndIndices sorted = lazy::sort(x);
    lazy_test::expect_compiles(lazy_test::generate_pending());
    lazy::sync();
  }
}

}  // namespace
