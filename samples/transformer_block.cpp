// One Llama-style transformer block's forward pass (transformer_block.h) on random inputs, run
// twice: the first call plans and compiles, the second replays the plan. Prints the output's
// shape, a checksum, and what lazyfuse did for each call.
//
//   transformer_block [batch [seq]]
//
// On a GPU the block is 16 heads of 128 (model width 2048, feed-forward 5632), batch 8 of 1024
// tokens by default. On the host (LAZY_DEVICE=cpu, or no GPU) it is shrunk to a width of 256 so
// that the reference evaluator finishes in seconds.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <lazy/lazy.h>

#include "transformer_block.h"

namespace {

// The host runs lazyfuse's reference evaluator, far slower than a GPU: a block small enough to
// finish in seconds, shaped like the GPU's otherwise (heads of 128, feed-forward 2.75x the width).
transformer::Config host_config() {
  transformer::Config c;
  c.batch = 1;
  c.seq = 64;
  c.heads = 2;
  c.ffn_hidden = 704;
  return c;
}

void print_call(int call, const lazy::Tensor& out, double checksum, const lazy::Stats& before,
                const lazy::Stats& after) {
  std::printf("call %d: output %s %s, checksum (sum of elements) %.6f\n", call,
              out.shape().to_string().c_str(), std::string(lazy::dtype_name(out.dtype())).c_str(),
              checksum);
  std::printf(
      "  %lld kernel launches, %lld matrix products, %lld plan hits, %lld plan misses, "
      "%lld NVRTC compiles\n",
      static_cast<long long>(after.kernel_launches - before.kernel_launches),
      static_cast<long long>(after.matmul_calls - before.matmul_calls),
      static_cast<long long>(after.plan_hits - before.plan_hits),
      static_cast<long long>(after.plan_misses - before.plan_misses),
      static_cast<long long>(after.nvrtc_compiles - before.nvrtc_compiles));
}

}  // namespace

int main(int argc, char** argv) {
  transformer::Config config = lazy::on_gpu() ? transformer::Config{} : host_config();
  if (argc > 1) config.batch = std::atoll(argv[1]);
  if (argc > 2) config.seq = std::atoll(argv[2]);
  std::printf("device: %s\n", lazy::device_description().c_str());
  std::printf("block: batch %lld, seq %lld, %lld heads of %lld, feed-forward %lld, %s\n",
              static_cast<long long>(config.batch), static_cast<long long>(config.seq),
              static_cast<long long>(config.heads), static_cast<long long>(config.head_dim),
              static_cast<long long>(config.ffn_hidden),
              std::string(lazy::dtype_name(config.dtype)).c_str());

  // Weights, position tables and input are computed before the calls, as a loaded model's are.
  const transformer::Weights weights = transformer::random_weights(config, /*seed=*/1);
  const transformer::Positions positions = transformer::positions(config);
  const lazy::Tensor x =
      lazy::randn({config.batch, config.seq, config.dim()}, /*seed=*/100, config.dtype);
  lazy::sync();

  for (int call = 0; call < 2; ++call) {
    const lazy::Stats before = lazy::stats();
    lazy::Tensor out = transformer::block(x, weights, positions, config);
    // Summed in f32; reading it is the sync point that computes the block and the sum together.
    const double checksum = lazy::sum(out.to(lazy::f32)).item<double>();
    print_call(call, out, checksum, before, lazy::stats());
  }
  return 0;
}
