// Gathers on the GPU against the reference evaluator on fresh random inputs: every dtype and index
// dtype, ranks 1 to 5, views, gathers fused with their neighbours (kernel counts), and a bad index
// reported by the kernel and thrown at the next sync.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>

#include <lazy/lazy.h>

#include "gpu_test_support.h"

namespace {

using lazy::DType;
using lazy::Shape;
using lazy::Tensor;
using lazy_test::expect_matches_reference;
using lazy_test::random_input;

class GpuIndexing : public lazy_test::GpuTest {};

// Indices in [0, bound) of `dtype`, computed.
Tensor random_picks(const Shape& shape, std::int64_t bound, DType dtype) {
  std::mt19937_64 gen(lazy_test::fresh_seed());
  std::uniform_int_distribution<std::int64_t> pick(0, bound - 1);
  std::vector<std::int64_t> values(std::size_t(shape.numel()));
  for (std::int64_t& v : values) v = pick(gen);
  Tensor t = lazy::from_data(values, shape, dtype);
  lazy::eval({t});
  return t;
}

TEST_F(GpuIndexing, GatherMatchesTheReferenceForEveryDtypeRankAndAxis) {
  const std::vector<Shape> shapes = {{37}, {9, 13}, {5, 6, 7}, {3, 4, 5, 6}, {2, 3, 2, 3, 5}};
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::i32, DType::i64, DType::bool_}) {
    for (const Shape& x_shape : shapes) {
      const int axis = x_shape.rank() - 1 - int(x_shape.numel() % x_shape.rank());
      Shape shape = x_shape;
      shape[axis] = 11;
      Tensor x = random_input(dtype, x_shape);
      Tensor index =
          random_picks(shape, x_shape[axis], x_shape.rank() % 2 ? DType::i32 : DType::i64);
      expect_matches_reference([&] { return std::vector<Tensor>{lazy::gather(x, axis, index)}; },
                               std::string(lazy::dtype_name(dtype)) + " " + x_shape.to_string());
    }
  }
}

TEST_F(GpuIndexing, GathersReadTransposedSlicedAndBroadcastOperandsInPlace) {
  Tensor x = random_input(DType::f32, {64, 48});
  Tensor ids = random_picks({40}, 48, DType::i64);
  expect_matches_reference(
      [&] {
        Tensor xt = x.transpose(0, 1);                 // [48, 64]
        Tensor rows = lazy::index_select(xt, 0, ids);  // [40, 64] read through the transpose
        Tensor cols = lazy::index_select(x.slice(0, 3, 60, 2), 1, ids.slice(0, 0, 40, 3));
        Tensor along = lazy::take_along_axis(x, ids.slice(0, 0, 8).reshape({1, 8}), 1);
        return std::vector<Tensor>{rows, cols, along};
      },
      "views");
}

// torch_check seed 17913 program 194: a gather of a tiled tensor (reshapes of a broadcast, written
// as they are computed) was an internal error; its source is now written by an earlier kernel.
TEST_F(GpuIndexing, AGatherOfATiledOrRepeatedTensorMatchesTheReference) {
  for (DType dtype : {DType::bool_, DType::f32, DType::bf16}) {
    Tensor x = random_input(dtype, {1, 2, 101});
    Tensor along_0 = random_picks({3, 2, 4, 303}, 3, DType::i64);
    Tensor along_2 = random_picks({3, 2, 5, 303}, 4, DType::i32);
    expect_matches_reference(
        [&] {
          const Tensor tiled = lazy::tile(x, {3, 2, 2, 3});  // [3, 2, 4, 303]
          const Tensor repeated = lazy::repeat(x, {3, 2, 2, 3});
          return std::vector<Tensor>{lazy::gather(tiled, 0, along_0),
                                     lazy::gather(repeated, 2, along_2), tiled};
        },
        std::string(lazy::dtype_name(dtype)));
  }
}

TEST_F(GpuIndexing, EmbeddingTimesScalePlusPositionIsOneKernel) {
  for (DType dtype : {DType::f32, DType::bf16}) {
    Tensor table = random_input(dtype, {1000, 96});
    Tensor ids = random_picks({4, 33}, 1000, DType::i32);
    Tensor pos = random_input(dtype, {33, 96});
    lazy::reset_stats();
    Tensor y = lazy::embedding(table, ids) * 0.5f + pos;
    lazy::eval({y});
    EXPECT_EQ(lazy::stats().kernel_launches, 1);
    expect_matches_reference(
        [&] { return std::vector<Tensor>{lazy::embedding(table, ids) * 0.5f + pos}; },
        std::string("embedding ") + std::string(lazy::dtype_name(dtype)));
  }
}

// Positions of 4 MiB broadcast over the batch: the groups visit the batch last but one
// (codegen/visit_order.h); every element is still written once, where it belongs.
TEST_F(GpuIndexing, EmbeddingPlusBroadcastPositionsInReuseOrderMatchesTheReference) {
  Tensor table = random_input(DType::f32, {2048, 1024});
  Tensor ids = random_picks({4, 1024}, 2048, DType::i64);
  Tensor pos = random_input(DType::f32, {1024, 1024});
  Tensor bias = random_input(DType::f32, {1024});
  expect_matches_reference(
      [&] {
        return std::vector<Tensor>{lazy::embedding(table, ids) * 2.0f + pos,
                                   lazy::embedding(table, ids) + bias - pos};
      },
      "reuse order");
}

TEST_F(GpuIndexing, APointwiseSourceIsComputedAtThePickedPositions) {
  Tensor x = random_input(DType::f32, {50, 20});
  Tensor ids = random_picks({30}, 50, DType::i64);
  Tensor columns = random_picks({1, 20}, 20, DType::i32);
  lazy::reset_stats();
  Tensor y = lazy::index_select(lazy::exp(x), 0, ids) + 1.0f;
  lazy::eval({y});
  EXPECT_EQ(lazy::stats().kernel_launches, 1);  // exp at the picked rows, then the add
  // A source with a generator is written first, then gathered.
  lazy::reset_stats();
  Tensor z = lazy::index_select(x + lazy::arange(0, 20, 1, DType::f32), 0, ids) + 1.0f;
  lazy::eval({z});
  EXPECT_EQ(lazy::stats().kernel_launches, 2);
  expect_matches_reference(
      [&] {
        Tensor picked = lazy::index_select(lazy::exp(x), 0, ids);
        // A gather feeding a row's reduction is written before the row kernel reads it.
        return std::vector<Tensor>{
            picked + 1.0f, lazy::softmax(picked, -1), lazy::sum(lazy::gather(x, 1, columns)),
            lazy::index_select(x + lazy::arange(0, 20, 1, DType::f32), 0, ids),
            lazy::take_along_axis(lazy::log_softmax(x, -1), columns, 1)};
      },
      "computed source");
}

TEST_F(GpuIndexing, AGatherNeverWritesOverTheDyingSourceItReads) {
  // The permuted copy has its source's dtype and size, and the source (written first: it has a
  // generator) dies in its kernel: a pointwise kernel would write into the source's memory, a
  // gather must not.
  Tensor x = random_input(DType::f32, {64, 32});
  std::vector<std::int64_t> reversed(64);
  for (std::size_t i = 0; i < reversed.size(); ++i) reversed[i] = std::int64_t(63 - i);
  Tensor ids = lazy::from_data(reversed, {64});
  expect_matches_reference(
      [&] {
        return std::vector<Tensor>{
            lazy::index_select(lazy::exp(x) + lazy::arange(0, 32, 1, DType::f32), 0, ids),
            lazy::gather(lazy::exp(x.slice(1, 0, 1)) + lazy::arange(0, 1, 1, DType::f32), 0,
                         ids.reshape({64, 1}))};
      },
      "permutation");
}

TEST_F(GpuIndexing, ABadIndexIsThrownAtTheNextSyncAndTheProgramGoesOn) {
  Tensor table = random_input(DType::f32, {16, 8});
  Tensor ids = lazy::from_data<std::int64_t>({3, 16, 5, -2}, {4});
  Tensor good = table * 3.0f;
  Tensor bad = lazy::embedding(table, ids);
  const int line = __LINE__ - 1;
  bool thrown = false;
  try {
    lazy::eval({good, bad});  // throws if the kernel has finished by the sync's end
    (void)bad.to_vector<float>();
  } catch (const lazy::IndexError& e) {
    thrown = true;
    const std::string what = e.what();
    EXPECT_NE(what.find("embedding"), std::string::npos) << what;
    EXPECT_NE(what.find("[0, 16)"), std::string::npos) << what;
    EXPECT_TRUE(what.find("index 16") != std::string::npos ||
                what.find("index -2") != std::string::npos)
        << what;
    EXPECT_EQ(e.where().line(), std::uint_least32_t(line)) << what;
  }
  EXPECT_TRUE(thrown);
  const std::vector<float> row = bad.to_vector<float>();  // thrown once: now it reads
  for (int d = 0; d < 8; ++d) EXPECT_EQ(row[std::size_t(8 + d)], 0.0f);
  const std::vector<float> tripled = good.to_vector<float>();
  const std::vector<float> source = table.to_vector<float>();
  for (std::size_t i = 0; i < source.size(); ++i) EXPECT_EQ(tripled[i], source[i] * 3.0f);
  Tensor fine = lazy::embedding(table, lazy::from_data<std::int64_t>({1}, {1}));
  EXPECT_EQ(fine.to_vector<float>().size(), 8u);
}

// Found under racecheck (cross_entropy's out-of-range target): item() looked for faults before
// its copy waited for the GPU, so a kernel still running when the sync returned reported its
// fault to the next sync instead. A sum over 2^28 gathered elements runs long enough to show it.
TEST_F(GpuIndexing, AnItemThrowsTheBadIndexOfTheKernelThatMadeIt) {
  const std::int64_t n = std::int64_t(1) << 28;
  const Tensor table = lazy::arange(0, 4, 1, DType::f32);
  const Tensor positions = lazy::arange(0, n, 1, DType::i64);
  const Tensor ids = lazy::where(positions == n - 1, 7, lazy::remainder(positions, 4));
  const Tensor total = lazy::sum(lazy::index_select(table, 0, ids));
  EXPECT_THROW((void)total.item<double>(), lazy::IndexError);
  lazy::sync();  // the fault was taken by the read: nothing is left for this sync to throw
}

// A sync that throws the fault of an earlier sync's kernel answers for its own kernels too: they
// run before the record clears, else a fault of theirs was thrown by a later, unrelated read
// (seen under racecheck, whose slow kernels widened the window, on nll_loss with class weights,
// whose two gathers are two kernels).
TEST_F(GpuIndexing, AThrownFaultAnswersForTheWorkQueuedBeforeIt) {
  // Sums over 2^28 gathered elements, the last index bad: each runs long past its sync's look.
  const std::int64_t n = std::int64_t(1) << 28;
  const Tensor table = lazy::arange(0, 4, 1, DType::f32);
  const Tensor positions = lazy::arange(0, n, 1, DType::i64);
  const auto faulting_sum = [&](std::int64_t bad) {
    return lazy::sum(
        lazy::index_select(table, 0, lazy::where(positions == n - 1, bad, positions % 4)));
  };
  int thrown = 0;
  bool early_thrown = false;
  try {
    lazy::eval({faulting_sum(7)});
  } catch (const lazy::IndexError&) {
    early_thrown = true;  // it finished before its sync looked (a stalled host): nothing to show
    ++thrown;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // it has run by now
  try {
    lazy::eval({faulting_sum(9)});  // throws the first fault while its own kernel still runs
  } catch (const lazy::IndexError& e) {
    ++thrown;
    EXPECT_NE(std::string(e.what()).find("index 7"), std::string::npos) << e.what();
  }
  try {
    (void)lazy::sum(table * 2.0f).item<float>();
  } catch (const lazy::IndexError& e) {
    ++thrown;
    EXPECT_TRUE(early_thrown) << "a fault outlived the sync that threw: " << e.what();
  }
  // Each fault once; the second sync's own fault is covered by its throw unless the first sync
  // took the first one.
  EXPECT_EQ(thrown, early_thrown ? 2 : 1);
}

// data_ptr hands memory to code outside lazyfuse once the work that wrote it has finished: a bad
// index of that work is thrown there, as a host read throws it (it was left for a later sync).
TEST_F(GpuIndexing, DataPtrThrowsTheIndexFaultOfTheWorkThatWroteIt) {
  const Tensor table = random_input(DType::f32, {16, 8});
  const Tensor bad = lazy::embedding(table, lazy::from_data<std::int64_t>({3, 40}, {2})) * 2.0f;
  const int line = __LINE__ - 1;
  try {
    lazy::eval({bad});  // may see the fault already, if the kernel ran before its sync looked
    (void)bad.data_ptr();
    ADD_FAILURE() << "index 40 of 16 rows was not refused by data_ptr";
  } catch (const lazy::IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("index 40"), std::string::npos) << e.what();
    EXPECT_EQ(e.where().line(), std::uint_least32_t(line)) << e.what();
  }
  EXPECT_NO_THROW((void)lazy::sum(table * 2.0f).item<float>());  // taken once
}

TEST_F(GpuIndexing, ABadIndexNamesItsOwnLineWhenTheSameStepRanFromAnotherLine) {
  // Plans are found by structure; one built for a gather on another line must not name that line.
  Tensor table = random_input(DType::f32, {16, 8});
  const auto ids_of = [](std::int64_t last) {
    return lazy::from_data<std::int64_t>({3, 1, 5, last}, {4});
  };
  lazy::eval({lazy::embedding(table, ids_of(2)) * 2.0f});
  Tensor bad = lazy::embedding(table, ids_of(40)) * 2.0f;
  const int line = __LINE__ - 1;
  try {
    lazy::eval({bad});
    (void)bad.to_vector<float>();
    ADD_FAILURE() << "index 40 of 16 rows was not refused";
  } catch (const lazy::IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("index 40"), std::string::npos) << e.what();
    EXPECT_EQ(e.where().line(), std::uint_least32_t(line)) << e.what();
  }
}

// Indices computed in the same sync as the gather that reads them (the fuzzer draws its indices
// as data): a routing step's top-k, an argmax, sorted positions, arithmetic on ids, a running
// count, each feeding a gather, an embedding or a scatter.
TEST_F(GpuIndexing, IndicesComputedInTheSameSyncMatchTheReference) {
  Tensor scores = random_input(DType::f32, {64, 96});
  Tensor values = random_input(DType::bf16, {64, 96});
  Tensor table = random_input(DType::f32, {50, 24});
  Tensor ids = random_picks({64, 7}, 1000, DType::i64);
  Tensor flags = random_input(DType::f32, {64, 96}) > 0.0f;
  expect_matches_reference(
      [&] {
        const lazy::ValuesAndIndices best = lazy::topk(scores * 2.0f, 8);
        const Tensor routed = lazy::take_along_axis(values, best.indices, -1);
        const Tensor chosen = lazy::gather(values, 1, lazy::argmax(scores, 1, true));
        const Tensor ordered = lazy::take_along_axis(scores, lazy::argsort(-scores, -1), -1);
        const Tensor rows = lazy::embedding(table, (ids * 7 + 3) % 50) * 0.5f;
        const Tensor counts = lazy::cumsum(flags.to(DType::i64), 1) % 96;
        const Tensor spread = lazy::scatter_add(lazy::zeros({64, 96}), 1, counts, scores);
        const Tensor picked = lazy::index_select(table, 0, lazy::argmax(scores, 1) % 50);
        return std::vector<Tensor>{routed, chosen, ordered, rows, spread, picked};
      },
      "computed indices");
}

}  // namespace
