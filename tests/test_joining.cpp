// cat and stack on the host path against loops written here, their kernels' structure without a
// GPU (one kernel for producers and copies, parts picked per element), and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "codegen_test_support.h"
#include "host_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::random_floats;

// Dense row-major tensors of `shapes` joined along `axis`, by loops.
std::vector<float> cat_loop(const std::vector<std::vector<float>>& parts,
                            const std::vector<Shape>& shapes, int axis) {
  std::int64_t outer = 1, inner = 1;
  for (int a = 0; a < axis; ++a) outer *= shapes[0][a];
  for (int a = axis + 1; a < shapes[0].rank(); ++a) inner *= shapes[0][a];
  std::vector<float> out;
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const std::int64_t run = shapes[k][axis] * inner;
      out.insert(out.end(), parts[k].begin() + o * run, parts[k].begin() + (o + 1) * run);
    }
  }
  return out;
}

TEST(Cat, JoinsAlongEveryAxisOfRanksOneToFour) {
  const std::vector<Shape> shapes = {{5}, {3, 4}, {2, 3, 4}, {2, 1, 3, 2}};
  std::uint32_t seed = 1;
  for (const Shape& shape : shapes) {
    for (int axis = 0; axis < shape.rank(); ++axis) {
      std::vector<Shape> part_shapes;
      std::vector<std::vector<float>> values;
      std::vector<Tensor> tensors;
      for (std::int64_t extent : {std::int64_t(2), std::int64_t(0), shape[axis], std::int64_t(3)}) {
        Shape s = shape;
        s[axis] = extent;
        part_shapes.push_back(s);
        values.push_back(random_floats(s.numel(), seed++));
        tensors.push_back(lazy::from_data(values.back(), s));
      }
      Tensor joined = lazy::cat(tensors, axis - shape.rank());
      Shape expected = shape;
      expected[axis] = shape[axis] + 5;
      EXPECT_EQ(joined.shape(), expected);
      EXPECT_EQ(joined.to_vector<float>(), cat_loop(values, part_shapes, axis))
          << shape.to_string() << " axis " << axis;
    }
  }
}

TEST(Cat, ReadsThroughViewsAndPromotesDtypes) {
  const std::vector<float> a = random_floats(12, 7);
  Tensor at = lazy::from_data(a, {3, 4}).transpose(0, 1);  // [4, 3]
  Tensor b = lazy::from_data<std::int32_t>({1, 2, 3}, {1, 3});
  Tensor joined = lazy::cat({at, b}, 0);
  EXPECT_EQ(joined.dtype(), DType::f32);
  std::vector<float> expected;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) expected.push_back(a[std::size_t(c * 4 + r)]);
  expected.insert(expected.end(), {1, 2, 3});
  EXPECT_EQ(joined.to_vector<float>(), expected);
  // A view of the result reads across the parts.
  EXPECT_EQ(joined.transpose(0, 1).slice(1, 3, 5).to_vector<float>(),
            (std::vector<float>{a[3], 1, a[7], 2, a[11], 3}));
}

// PyTorch's legacy rule: a 1-d tensor of size 0 is skipped beside tensors of any shape, wherever it
// stands, and the axis counts in the first tensor that is not skipped; its dtype still promotes.
TEST(Cat, SkipsOneDimensionalEmptyTensors) {
  const Tensor empty_f32 = lazy::zeros({0}, DType::f32);
  const Tensor a = lazy::from_data<std::int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = lazy::from_data<std::int32_t>({7, 8}, {2, 1});
  const Tensor joined = lazy::cat({empty_f32, a, lazy::zeros({0}, DType::i32), b}, -1);
  EXPECT_EQ(joined.shape(), Shape({2, 4}));
  EXPECT_EQ(joined.dtype(), DType::f32);
  EXPECT_EQ(joined.to_vector<float>(), (std::vector<float>{1, 2, 3, 7, 4, 5, 6, 8}));
  const Tensor alone = lazy::cat({a, empty_f32}, 1);
  EXPECT_EQ(alone.dtype(), DType::f32);
  EXPECT_EQ(alone.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(lazy::cat({lazy::zeros({0}), lazy::zeros({0})}).shape(), Shape({0}));
  // Found in review: with every tensor skipped, the axis is not checked (PyTorch gives [0]).
  const Tensor none = lazy::cat({lazy::zeros({0}, DType::i32), empty_f32}, 1);
  EXPECT_EQ(none.shape(), Shape({0}));
  EXPECT_EQ(none.dtype(), DType::f32);
  // Only 1-d: a [2, 0] tensor must agree with the others.
  EXPECT_THROW(lazy::cat({a, lazy::zeros({2, 0, 1})}, 1), lazy::ShapeError);
  EXPECT_THROW(lazy::cat({lazy::zeros({0}), a}, 2), lazy::AxisError);
}

TEST(Stack, AddsANewAxisAtAnyPosition) {
  Tensor a = lazy::from_data<float>({1, 2, 3, 4}, {2, 2});
  Tensor b = lazy::from_data<float>({5, 6, 7, 8}, {2, 2});
  EXPECT_EQ(lazy::stack({a, b}).shape(), Shape({2, 2, 2}));
  EXPECT_EQ(lazy::stack({a, b}, 1).to_vector<float>(),
            (std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8}));
  EXPECT_EQ(lazy::stack({a, b}, -1).to_vector<float>(),
            (std::vector<float>{1, 5, 2, 6, 3, 7, 4, 8}));
  EXPECT_EQ(lazy::stack({lazy::full({}, 2.0f), lazy::full({}, 3.0f)}).to_vector<float>(),
            (std::vector<float>{2, 3}));
}

TEST(Cat, BadInputIsRefusedAtTheCall) {
  Tensor a = lazy::zeros({2, 3});
  EXPECT_THROW(lazy::cat({}, 0), lazy::ValueError);
  EXPECT_THROW(lazy::cat({a, lazy::zeros({3, 3})}, 1), lazy::ShapeError);
  EXPECT_THROW(lazy::cat({a, lazy::zeros({2, 3, 1})}, 0), lazy::ShapeError);
  EXPECT_THROW(lazy::cat({lazy::full({}, 1.0f)}, 0), lazy::ShapeError);
  EXPECT_THROW(lazy::cat({a, lazy::full({}, 1.0f)}, 0), lazy::ShapeError);
  EXPECT_THROW(lazy::cat({a, a}, 2), lazy::AxisError);
  EXPECT_THROW(lazy::stack({a, lazy::zeros({3, 2})}), lazy::ShapeError);
  EXPECT_THROW(lazy::stack({a, a}, 3), lazy::AxisError);
  EXPECT_NO_THROW(lazy::stack({a, a}, -3));
}

// The kernels a sync would run for what is pending, and their sources compiled.
lazy_test::Generated generated() {
  lazy_test::Generated g = lazy_test::generate_pending();
  lazy_test::expect_compiles(g);
  return g;
}

TEST(CatKernels, ProducersComputedInTheSameSyncAreOneKernelThatPicksAPartPerGroup) {
  // Large enough that a thread takes a group of 4 (codegen/iteration_space.h).
  Tensor x = lazy::from_data(random_floats(32768 * 4, 3), {32768, 4});
  Tensor y = lazy::from_data(random_floats(16384 * 4, 4), {16384, 4});
  Tensor joined = lazy::cat({lazy::exp(x), y * 2.0f, lazy::sin(x)}, 0);
  lazy_test::Generated g = generated();
  ASSERT_EQ(g.kernels.size(), 1u);
  const std::string& source = g.kernels[0].source;
  EXPECT_NE(source.find("else if"), std::string::npos) << source;
  EXPECT_EQ(g.kernels[0].vector_width, 4) << source;
  lazy::sync();
  EXPECT_EQ(joined.shape(), Shape({81920, 4}));
}

TEST(CatKernels, ComputedTensorsOfDifferentShapesAreCopiedByOneKernel) {
  std::vector<Tensor> parts;
  for (std::int64_t n : {5, 1, 12})
    parts.push_back(lazy::from_data(random_floats(3 * n, 11), {n, 3}).transpose(0, 1));
  Tensor joined = lazy::cat(parts, 1);
  lazy_test::Generated g = generated();
  EXPECT_EQ(g.kernels.size(), 1u);
  lazy::sync();
  EXPECT_EQ(joined.shape(), Shape({3, 18}));
}

TEST(CatKernels, PartsEndingInsideAGroupAreReadOneElementAtATime) {
  std::vector<Tensor> parts;
  for (std::int64_t n : {3, 6, 7})
    parts.push_back(lazy::from_data(random_floats(2 * n, 9), {2, n}));
  Tensor joined = lazy::cat(parts, 1);
  lazy_test::Generated g = generated();
  ASSERT_EQ(g.kernels.size(), 1u);
  EXPECT_EQ(g.kernels[0].vector_width, 1) << g.kernels[0].source;
  lazy::sync();
}

// lazyfuse-fuzz seed 14105 program 199, shrunk: a concatenation nested in another's part took the
// outer part's index for its own (reading the wrong input, or past its list of parts). Each is
// now computed where it is read, in one kernel.
TEST(CatKernels, AConcatenationInsideAnotherIsComputedInItsPart) {
  // Not held, the [3, 1] stack is inlined into the cat.
  auto stacked = [] {
    return lazy::stack({lazy::from_data<float>({0.5f}, {1}), lazy::from_data<float>({-30.25f}, {1}),
                        lazy::from_data<std::int64_t>({7}, {1})},
                       -2);
  };
  Tensor joined = lazy::cat({stacked(), lazy::from_data<float>({1, 2, 3}, {3, 1}),
                             lazy::from_data<float>({0.25f, 0.5f, 0.75f}, {3, 1})},
                            1);
  lazy_test::Generated g = generated();
  ASSERT_EQ(g.kernels.size(), 1u);
  EXPECT_EQ(joined.to_vector<float>(),
            (std::vector<float>{0.5f, 1, 0.25f, -30.25f, 2, 0.5f, 7, 3, 0.75f}));
}

// Several concatenations in one kernel each branch on their own parts where they are read; a
// reduction's kernel computes none (it is written first).
TEST(CatKernels, ConcatenationsShareAKernelAndOneAReductionReadsIsWrittenFirst) {
  Tensor x = lazy::from_data(random_floats(8, 5), {8});
  Tensor both = lazy::cat({x, x * 2.0f}) * lazy::cat({x + 1.0f, x});
  Tensor total = lazy::sum(lazy::cat({x, x}));
  lazy_test::Generated g = generated();
  int concat_cuts = 0, reduction_cuts = 0;
  for (std::size_t i = 0; i < g.partition.cuts.cut.size(); ++i) {
    if (!g.partition.cuts.cut[i]) continue;
    concat_cuts += g.partition.cuts.reason[i] == lazy::fuse::CutReason::concat_per_kernel;
    reduction_cuts += g.partition.cuts.reason[i] == lazy::fuse::CutReason::concat_in_reduction;
  }
  EXPECT_EQ(concat_cuts, 0);
  EXPECT_EQ(reduction_cuts, 1);
  // LAZY_DEBUG=2 prints this description: each cut is named with the line that recorded it.
  const std::string described = g.partition.describe();
  EXPECT_NE(described.find("Concat f32[16] (concat_in_reduction) from"), std::string::npos)
      << described;
  const auto both_kernel = std::find_if(g.kernels.begin(), g.kernels.end(), [](const auto& k) {
    return k.source.find("a.ce") != std::string::npos &&
           k.source.find("lz_mul") != std::string::npos;
  });
  ASSERT_NE(both_kernel, g.kernels.end());
  lazy::sync();
  std::vector<float> xs = x.to_vector<float>(), got = both.to_vector<float>();
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(got[i], xs[i] * (xs[i] + 1.0f));
    EXPECT_EQ(got[i + 8], xs[i] * 2.0f * xs[i]);
  }
  EXPECT_NEAR(total.item<float>(), 2 * lazy::sum(x).item<float>(), 1e-5);
}

// A heat-equation step written with rolls (periodic borders) and one with replicate padding:
// each roll or pad is a concatenation, and all of them are read in the kernel that needs them
// (the rolls' step was five kernels when a kernel computed one concatenation).
TEST(CatKernels, AStencilOfRollsIsOneKernel) {
  constexpr std::int64_t kRows = 5, kCols = 7;
  const std::vector<float> values = random_floats(kRows * kCols, 11);
  const Tensor u = lazy::from_data(values, {kRows, kCols});
  const Tensor periodic = lazy::roll(u, 1, 0) + lazy::roll(u, -1, 0) + lazy::roll(u, 1, 1) +
                          lazy::roll(u, -1, 1) - u * 4.0f;
  lazy_test::Generated g = generated();
  ASSERT_EQ(g.kernels.size(), 1u);
  // Each roll's parts are loads: the part picks the address and one load follows, no branch.
  const std::string& source = g.kernels[0].source;
  EXPECT_NE(source.find("const auto* q"), std::string::npos) << source;
  EXPECT_EQ(source.find("if (r"), std::string::npos) << source;
  // Every load of u shares one pointer argument, so the compiler sees one tensor.
  const auto pointers = std::count_if(
      g.kernels[0].args.begin(), g.kernels[0].args.end(),
      [](const auto& arg) { return arg.kind == lazy::codegen::ArgSource::Kind::external_pointer; });
  EXPECT_EQ(pointers, 1) << source;
  const std::vector<float> got = periodic.to_vector<float>();
  // Not held, the padded tensor is not written.
  const Tensor clamped = [&] {
    const Tensor v = lazy::pad(u, {1, 1, 1, 1}, lazy::PadMode::replicate);
    const auto inner = [&](std::int64_t dr, std::int64_t dc) {
      return v.slice(0, 1 + dr, 1 + dr + kRows, 1).slice(1, 1 + dc, 1 + dc + kCols, 1);
    };
    return inner(-1, 0) + inner(1, 0) + inner(0, -1) + inner(0, 1) - u * 4.0f;
  }();
  g = generated();
  EXPECT_EQ(g.kernels.size(), 1u);
  const std::vector<float> got2 = clamped.to_vector<float>();
  const auto at = [&](std::int64_t r, std::int64_t c) {
    return values[std::size_t(r * kCols + c)];
  };
  for (std::int64_t r = 0; r < kRows; ++r) {
    for (std::int64_t c = 0; c < kCols; ++c) {
      const auto wrap = [](std::int64_t i, std::int64_t n) { return (i + n) % n; };
      const auto clamp = [](std::int64_t i, std::int64_t n) {
        return std::clamp<std::int64_t>(i, 0, n - 1);
      };
      const float want = at(wrap(r - 1, kRows), c) + at(wrap(r + 1, kRows), c) +
                         at(r, wrap(c - 1, kCols)) + at(r, wrap(c + 1, kCols)) - at(r, c) * 4.0f;
      const float want2 = at(clamp(r - 1, kRows), c) + at(clamp(r + 1, kRows), c) +
                          at(r, clamp(c - 1, kCols)) + at(r, clamp(c + 1, kCols)) - at(r, c) * 4.0f;
      EXPECT_NEAR(got[std::size_t(r * kCols + c)], want, 1e-5f) << r << " " << c;
      EXPECT_NEAR(got2[std::size_t(r * kCols + c)], want2, 1e-5f) << r << " " << c;
    }
  }
}

// A kernel of several concatenations compiles its sizes in (its positions' arithmetic folds),
// or, as runtime/size_variants.h picks past LAZY_SPECIALIZED_CONCAT_SHAPES, takes them all as
// arguments; either compiles, one element a thread (a small grid) or in groups whose row rolls
// read one vector each (select_kernel.h).
TEST(CatKernels, AKernelOfSeveralConcatenationsCompilesItsSizesInOrTakesThemAtRunTime) {
  for (const lazy::Shape& shape : {lazy::Shape{6, 9}, lazy::Shape{512, 1024}}) {
    const Tensor u = lazy::from_data(random_floats(shape.numel(), 12), shape);
    const Tensor stencil = lazy::roll(u, 2, 0) + lazy::roll(u, -3, 1) * u;
    lazy::ir::Trace& trace = lazy::ir::Trace::current();
    const lazy::fuse::Partition partition =
        lazy::fuse::partition(trace.pending(), trace.live(), trace.externals(), {true});
    ASSERT_EQ(partition.regions.size(), 1u);
    for (const bool at_run_time : {false, true}) {
      lazy_test::Generated g;
      g.kernels.push_back(lazy::codegen::generate_kernel(partition.regions[0],
                                                         partition.graph.nodes, trace.externals(),
                                                         {.sizes_at_run_time = at_run_time}));
      const lazy::codegen::GeneratedKernel& kernel = g.kernels[0];
      const auto constants = std::count_if(
          kernel.args.begin(), kernel.args.end(),
          [](const auto& arg) { return arg.kind == lazy::codegen::ArgSource::Kind::constant; });
      const bool compiled =
          kernel.source.find("static constexpr long long cp") != std::string::npos;
      EXPECT_EQ(compiled, !at_run_time) << kernel.source;
      EXPECT_EQ(constants == 0, !at_run_time) << kernel.source;
      const bool grouped = shape.numel() > 1000;
      EXPECT_EQ(kernel.vector_width, grouped ? 4 : 1);
      EXPECT_EQ(kernel.source.find("= lz_load_vec<4>(q") != std::string::npos, grouped)
          << kernel.source;
      lazy_test::expect_compiles(g);
    }
    EXPECT_EQ(stencil.shape(), u.shape());
    lazy::eval({stencil});
  }
}

// Found in review: beside another concatenation each part repeats its loads, and 32 rolls of a
// sum of 32 tensors needed 33 KiB of kernel arguments, past CUDA's 32 (NVRTC refused the kernel).
// A concatenation that would pass the argument space is written first.
TEST(CatKernels, ConcatenationsThatWouldOverflowTheArgumentsAreWrittenFirst) {
  std::vector<Tensor> xs;
  for (int k = 0; k < 32; ++k)
    xs.push_back(lazy::from_data(random_floats(64 * 32, 100 + k), {64, 32}));
  const Tensor sum = [&] {
    Tensor s = xs[0];
    for (int k = 1; k < 32; ++k) s = s + xs[std::size_t(k)];
    return s;
  }();
  Tensor out = lazy::roll(sum, 1, 0);
  for (int r = 2; r <= 32; ++r) out = out + lazy::roll(sum, r, 1);
  lazy_test::Generated g = generated();  // each kernel compiles
  int concat_cuts = 0;
  for (std::size_t i = 0; i < g.partition.cuts.cut.size(); ++i)
    concat_cuts += g.partition.cuts.cut[i] &&
                   g.partition.cuts.reason[i] == lazy::fuse::CutReason::concat_per_kernel;
  EXPECT_GT(concat_cuts, 0);
  std::vector<float> total(64 * 32, 0.0f);
  for (const Tensor& x : xs) {
    const std::vector<float> v = x.to_vector<float>();
    for (std::size_t i = 0; i < v.size(); ++i) total[i] += v[i];
  }
  const std::vector<float> got = out.to_vector<float>();
  for (std::int64_t r = 0; r < 64; ++r) {
    for (std::int64_t c = 0; c < 32; ++c) {
      float want = total[std::size_t((r + 63) % 64 * 32 + c)];
      for (int shift = 2; shift <= 32; ++shift)
        want += total[std::size_t(r * 32 + (c - shift + 64) % 32)];
      EXPECT_NEAR(got[std::size_t(r * 32 + c)], want, 1e-3f) << r << " " << c;
    }
  }
}

// Found in review: a Concat of about 1400 parts overflowed the kernel's 32 KiB of arguments (a
// CompileError, on the host too); joins of many parts go in groups.
TEST(Joining, CatAndStackOfThousandsOfTensors) {
  constexpr int kParts = 1500;
  std::vector<Tensor> rows, scalars;
  for (int k = 0; k < kParts; ++k) {
    rows.push_back(lazy::from_data<float>({float(k), float(-k)}, {1, 2}));
    scalars.push_back(lazy::from_data<std::int32_t>({k}, {}));
  }
  const std::vector<float> joined = lazy::cat(rows, 0).to_vector<float>();
  ASSERT_EQ(joined.size(), std::size_t(2 * kParts));
  for (int k = 0; k < kParts; ++k) {
    ASSERT_EQ(joined[std::size_t(2 * k)], float(k));
    ASSERT_EQ(joined[std::size_t(2 * k + 1)], float(-k));
  }
  const Tensor stacked = lazy::stack(scalars, 0);
  EXPECT_EQ(stacked.shape(), lazy::Shape({kParts}));
  const std::vector<std::int32_t> values = stacked.to_vector<std::int32_t>();
  for (int k = 0; k < kParts; ++k) ASSERT_EQ(values[std::size_t(k)], k);
}

}  // namespace
