// Host cost of the lazy front end, in ns per recorded op, for a 64-op chain:
//   record: calling the ops (checks, node, hashes, trace append), then dropping the trace;
//   sync_key: forming the key of the pending 64-op graph.
// Goal (issue 2): recording at most 150 ns per op.
#include <benchmark/benchmark.h>

#include <lazy/lazy.h>

#include "ir/trace.h"

namespace {

constexpr int kChainOps = 64;

// 64 ops: 8 rounds of x = tanh(sigmoid(x * 1.01 + 0.1) - 0.25) * 0.9 + x (8 ops a round).
lazy::Tensor record_chain(const lazy::Tensor& input) {
  lazy::Tensor x = input;
  for (int round = 0; round < kChainOps / 8; ++round) {
    lazy::Tensor s = lazy::sigmoid(x * 1.01f + 0.1f) - 0.25f;
    x = lazy::tanh(s) * 0.9f + x;
    x = lazy::exp(x);
  }
  return x;
}

lazy::Tensor computed_input() {
  lazy::Tensor x = lazy::randn({1024, 1024}, 1);
  lazy::eval({x});
  return x;
}

void per_op_counter(benchmark::State& state) {
  // Seconds per op, printed with an SI prefix ("150n" is 150 ns).
  state.counters["per_op"] = benchmark::Counter(
      kChainOps, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Record64OpChain(benchmark::State& state) {
  lazy::Tensor input = computed_input();
  for (auto _ : state) {
    lazy::Tensor y = record_chain(input);
    benchmark::DoNotOptimize(y.node());
    lazy::ir::Trace::current().clear();  // drop it unsynced: only recording is measured
  }
  per_op_counter(state);
}
BENCHMARK(BM_Record64OpChain);

void BM_SyncKey64OpChain(benchmark::State& state) {
  lazy::Tensor input = computed_input();
  lazy::Tensor y = record_chain(input);
  for (auto _ : state) benchmark::DoNotOptimize(lazy::ir::Trace::current().sync_key());
  per_op_counter(state);
  lazy::ir::Trace::current().clear();
}
BENCHMARK(BM_SyncKey64OpChain);

}  // namespace

BENCHMARK_MAIN();
