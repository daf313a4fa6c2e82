// What bench_matmul's workloads share: a workload's description and the helpers that make its
// inputs. The training steps (issue 16) live in training_workloads.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include <lazy/lazy.h>

#include "event_timing.h"
#include "transformer_block.h"

namespace lazy::bench {

inline constexpr lazy::DType kDtype = lazy::DType::bf16;

struct Workload {
  std::string name;
  double flops;                     // 2 * M * N * K summed over the products
  std::int64_t bytes;               // fewest bytes moved: each input read once, each output written
  std::function<StepFn()> prepare;  // creates and computes the inputs; the step holds them
  bool per_call_loop = false;       // also timed as back-to-back calls that wait for each result
  int layers = 1;                   // identical layers in a step, for the time per layer
};

inline std::int64_t bf16_bytes(std::int64_t elements) {
  return elements * lazy::itemsize(kDtype);
}

// Inputs are computed before timing so that only the workload's work is measured. Normal values
// times `scale`: weights take 1/sqrt(fan_in) so that products stay O(1).
inline lazy::Tensor computed_randn(const lazy::Shape& shape, std::uint64_t seed, float scale = 1) {
  lazy::Tensor t = lazy::randn(shape, seed, kDtype) * scale;
  lazy::eval({t});
  return t;
}

inline float inverse_sqrt(std::int64_t fan_in) {
  return float(1 / std::sqrt(double(fan_in)));
}

inline double product_flops(std::int64_t m, std::int64_t n, std::int64_t k) {
  return 2.0 * double(m) * double(n) * double(k);
}

// Flops of the block's products: the q, k, v and output projections, the feed-forward's three,
// and attention's two (q k^T and probs v) counted in full, as a dense product computes them,
// not halved for the causal mask.
inline double block_flops(const transformer::Config& c) {
  const std::int64_t tokens = c.batch * c.seq;
  const std::int64_t dim = c.dim();
  const double projections = 4 * product_flops(tokens, dim, dim);
  const double feed_forward = 3 * product_flops(tokens, c.ffn_hidden, dim);
  const double attention = 2 * double(c.batch * c.heads) * product_flops(c.seq, c.seq, c.head_dim);
  return projections + feed_forward + attention;
}

// One training step of a 4-layer MLP, width 4096, batch 8192, with AdamW.
Workload mlp_train();
// One training step of the transformer block (samples/transformer_block.h) with AdamW.
Workload block_train();

}  // namespace lazy::bench
