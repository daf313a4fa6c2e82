// Issue 16's training steps: forward, backward (lazy::value_and_grad) and an AdamW update, with
// f32 master weights used in bf16. bench/peers_matmul.py has the same steps in PyTorch.
#include <memory>
#include <vector>

#include "matmul_workloads.h"

namespace lazy::bench {

namespace {

constexpr double kLr = 1e-4, kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8, kDecay = 0.01;

// The parameters, then their first and second moments, all f32.
std::vector<lazy::Tensor> adam_state(std::vector<lazy::Tensor> params) {
  const std::size_t n = params.size();
  for (std::size_t k = 0; k < 2; ++k)
    for (std::size_t i = 0; i < n; ++i) params.push_back(lazy::zeros(params[i].shape()));
  lazy::eval(params);
  return params;
}

// The loss, then the new state in the order of `state`: the parameters, their first moments,
// their second moments. Takes the state by value: once the caller's handles are gone, the new
// values are written over the old ones.
std::vector<lazy::Tensor> adamw_step(const lazy::ValueAndGrad& loss,
                                     std::vector<lazy::Tensor> state) {
  const std::size_t n = state.size() / 3;
  lazy::ValueAndGradients r = loss(std::span<const lazy::Tensor>(state.data(), n));
  for (std::size_t i = 0; i < n; ++i) {
    const lazy::Tensor& g = r.gradients[i];
    lazy::Tensor &p = state[i], &m = state[n + i], &v = state[2 * n + i];
    m = kBeta1 * m + (1 - kBeta1) * g;
    v = kBeta2 * v + (1 - kBeta2) * lazy::square(g);
    // The first step's bias corrections: the step's cost does not depend on them.
    p = p * (1 - kLr * kDecay) - kLr * (m / (1 - kBeta1)) / (lazy::sqrt(v / (1 - kBeta2)) + kEps);
  }
  state.insert(state.begin(), r.value);
  return state;
}

// A step that trains: each call updates the state the next one reads, as an optimizer does.
StepFn training_step(lazy::ValueAndGrad loss, std::vector<lazy::Tensor> params) {
  auto state = std::make_shared<std::vector<lazy::Tensor>>(adam_state(std::move(params)));
  return StepFn([loss = std::move(loss), state] {
    std::vector<lazy::Tensor> out = adamw_step(loss, std::move(*state));
    state->assign(out.begin() + 1, out.end());
    return out;
  });
}

}  // namespace

// f32 master weights used in bf16 (autocast), gelu_tanh between layers, a mean-square loss. The
// input is a constant, so the first layer's input gradient is not computed: 4 forward products,
// 4 weight gradients, 3 input gradients.
constexpr std::int64_t kTrainBatch = 8192, kTrainWidth = 4096, kTrainLayers = 4;

Workload mlp_train() {
  const double flops =
      (3 * kTrainLayers - 1) * product_flops(kTrainBatch, kTrainWidth, kTrainWidth);
  const std::int64_t params = kTrainLayers * (kTrainWidth * kTrainWidth + kTrainWidth);
  // bf16 input and target read; f32 weights, moments read and written.
  const std::int64_t bytes = bf16_bytes(2 * kTrainBatch * kTrainWidth) + 6 * 4 * params;
  return {"mlp_train", flops, bytes, [] {
            lazy::Tensor x = computed_randn({kTrainBatch, kTrainWidth}, 30);
            lazy::Tensor target = computed_randn({kTrainBatch, kTrainWidth}, 31);
            std::vector<lazy::Tensor> params;  // per layer: weight, bias
            for (std::int64_t layer = 0; layer < kTrainLayers; ++layer) {
              params.push_back(lazy::randn({kTrainWidth, kTrainWidth}, std::uint64_t(40 + layer)) *
                               inverse_sqrt(kTrainWidth));
              params.push_back(lazy::zeros({kTrainWidth}));
            }
            const lazy::ValueAndGrad loss([x, target](std::span<const lazy::Tensor> p) {
              lazy::Tensor h = x;
              for (std::int64_t layer = 0; layer < kTrainLayers; ++layer) {
                h = lazy::linear(h, p[2 * layer].to(kDtype), p[2 * layer + 1].to(kDtype));
                if (layer + 1 < kTrainLayers) h = lazy::gelu_tanh(h);
              }
              return lazy::mean(lazy::square((h - target).to(lazy::DType::f32)));
            });
            return training_step(loss, std::move(params));
          }};
}

// The block's seven weights in f32, used in bf16; a mean-square loss against a random target.
// Forward, the input gradients of every product but the first, and every weight gradient: about
// three times the forward's flops.
Workload block_train() {
  const transformer::Config config;
  const std::int64_t dim = config.dim();
  const std::int64_t activations = config.batch * config.seq * dim;
  const std::int64_t params = 4 * dim * dim + 3 * config.ffn_hidden * dim + 2 * dim;
  const std::int64_t bytes = bf16_bytes(2 * activations) + 6 * 4 * params;
  return {
      "block_train", 3 * block_flops(config), bytes, [config] {
        const transformer::Weights w = transformer::random_weights(config, 11);
        const transformer::Positions positions = transformer::positions(config);
        lazy::Tensor x = computed_randn({config.batch, config.seq, config.dim()}, 20);
        lazy::Tensor target = computed_randn({config.batch, config.seq, config.dim()}, 21);
        lazy::eval({positions.cos, positions.sin, positions.causal});
        std::vector<lazy::Tensor> params;
        for (const lazy::Tensor& t : {w.attn_norm, w.qkv, w.o, w.ffn_norm, w.gate, w.up, w.down})
          params.push_back(t.to(lazy::DType::f32));
        const lazy::ValueAndGrad loss(
            [x, target, positions, config](std::span<const lazy::Tensor> p) {
              const auto used = [&](int i) { return p[std::size_t(i)].to(kDtype); };
              const transformer::Weights in_bf16{used(0), used(1), used(2), used(3),
                                                 used(4), used(5), used(6)};
              const lazy::Tensor y = transformer::block(x, in_bf16, positions, config);
              return lazy::mean(lazy::square((y - target).to(lazy::DType::f32)));
            });
        return training_step(loss, std::move(params));
      }};
}

}  // namespace lazy::bench
