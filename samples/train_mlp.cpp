// A small classifier trained with lazy::value_and_grad and lazy::optim::Adam: points drawn around K
// random centres, labelled by their centre; three linear layers with gelu between, cross-entropy
// from the integer labels. Each step (forward, backward, update) is recorded and computed in one
// sync.
//
//   train_mlp [steps]   (200 by default)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <lazy/lazy.h>

namespace {

using lazy::Tensor;

constexpr std::int64_t kPoints = 512, kFeatures = 16, kHidden = 64, kClasses = 4;
constexpr double kLearningRate = 3e-3;

Tensor logits_of(std::span<const Tensor> p, const Tensor& x) {
  const Tensor h1 = lazy::gelu(lazy::linear(x, p[0], p[1]));
  const Tensor h2 = lazy::gelu(lazy::linear(h1, p[2], p[3]));
  return lazy::linear(h2, p[4], p[5]);
}

// Weights of a layer with `in` inputs, scaled as PyTorch's default (uniform in +-1/sqrt(in) has
// this standard deviation).
Tensor layer(std::int64_t out, std::int64_t in, std::uint64_t seed) {
  return lazy::randn({out, in}, seed) * (1.0 / std::sqrt(3.0 * double(in)));
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 200;
  std::printf("device: %s\n", lazy::device_description().c_str());

  // The data: kClasses centres, and kPoints points around them.
  std::vector<std::int64_t> label_values(kPoints);
  for (std::int64_t i = 0; i < kPoints; ++i) label_values[std::size_t(i)] = i % kClasses;
  const Tensor labels = lazy::from_data(label_values, {kPoints});
  const Tensor centres = lazy::randn({kClasses, kFeatures}, /*seed=*/1) * 0.25;
  const Tensor x =
      lazy::index_select(centres, 0, labels) + lazy::randn({kPoints, kFeatures}, /*seed=*/2);

  lazy::optim::Adam adam(
      {layer(kHidden, kFeatures, 3), lazy::zeros({kHidden}), layer(kHidden, kHidden, 4),
       lazy::zeros({kHidden}), layer(kClasses, kHidden, 5), lazy::zeros({kClasses})},
      {.lr = kLearningRate});
  lazy::eval({x, labels});

  const lazy::ValueAndGrad loss_and_gradients(
      [&](std::span<const Tensor> p) { return lazy::cross_entropy(logits_of(p, x), labels); });
  for (int step = 1; step <= steps; ++step) {
    lazy::ValueAndGradients r = loss_and_gradients(adam.params());
    adam.step(r.gradients);
    lazy::sync();  // the step's one sync: forward, backward and update
    if (step == 1 || step % 50 == 0)
      std::printf("step %4d  loss %.4f\n", step, r.value.item<float>());
  }

  const Tensor predicted = lazy::argmax(logits_of(adam.params(), x), -1);
  const float accuracy = lazy::mean((predicted == labels).to(lazy::f32)).item<float>();
  std::printf("accuracy %.1f%% on %lld points of %lld classes\n", 100 * accuracy,
              static_cast<long long>(kPoints), static_cast<long long>(kClasses));
  return 0;
}
