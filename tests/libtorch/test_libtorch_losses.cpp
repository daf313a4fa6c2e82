// PyTorch as the oracle of the element-wise losses (l1_loss, smooth_l1_loss, huber_loss,
// binary_cross_entropy with and without logits, kl_div): values, errors and gradients on the
// same CUDA inputs, as test_libtorch_semantics and test_libtorch_gradients check the other ops.
#include <gtest/gtest.h>

#include "torch_oracle.h"

namespace {

using namespace lazy_torch_oracle;
using lazy::Reduction;

at::Tensor f32(std::vector<float> values, std::vector<std::int64_t> shape) {
  return cuda_tensor(std::move(values), kF32, std::move(shape));
}

// Weights a gradient case multiplies by, held fixed: PyTorch differentiates neither a binary
// cross entropy's weight nor its pos_weight.
const std::vector<float> kWeights = {2, 0.5f, 1, 3};
lazy::Tensor lazy_weights() {
  return lazy::from_data(kWeights, {4});
}
at::Tensor torch_weights() {
  return f32(kWeights, {4});
}

TEST_F(LibTorchSemantics, RegressionAndProbabilityLosses) {
  expect_agreement({
      TWO("l1_loss", lazy::l1_loss(s, r), at::l1_loss(s, r)),
      TWO("l1_loss at special values", lazy::l1_loss(fa, fb, Reduction::none),
          at::l1_loss(fa, fb, at::Reduction::None)),
      TWO("f16 l1_loss summed", lazy::l1_loss(ha, hb, Reduction::sum),
          at::l1_loss(ha, hb, at::Reduction::Sum)),
      TWO("smooth_l1_loss", lazy::smooth_l1_loss(s, fc.reshape({3, 4}), Reduction::none, 0.5),
          at::smooth_l1_loss(s, fc.reshape({3, 4}), at::Reduction::None, 0.5)),
      TWO("smooth_l1_loss at special values", lazy::smooth_l1_loss(fa, fb, Reduction::none),
          at::smooth_l1_loss(fa, fb, at::Reduction::None, 1.0)),
      TWO("huber_loss", lazy::huber_loss(s, fc.reshape({3, 4}), Reduction::sum, 2.0),
          at::huber_loss(s, fc.reshape({3, 4}), at::Reduction::Sum, 2.0)),
      TWO("huber_loss at special values", lazy::huber_loss(fa, fb, Reduction::none),
          at::huber_loss(fa, fb, at::Reduction::None, 1.0)),
      // Inputs keep sigmoid's results normal: the GPU flushes subnormal ones to 0 (semantics.md).
      TWO("binary_cross_entropy",
          lazy::binary_cross_entropy(lazy::sigmoid(fc * 0.5f), lazy::sigmoid(fc * 0.1f)),
          at::binary_cross_entropy(at::sigmoid(fc * 0.5f), at::sigmoid(fc * 0.1f))),
      TWO("binary_cross_entropy at 0 and 1",
          lazy::binary_cross_entropy(lazy::sigmoid(fc * 10.0f), lazy::sigmoid(fc),
                                     lazy::repeat(w4, {3}), Reduction::none),
          at::binary_cross_entropy(at::sigmoid(fc * 10.0f), at::sigmoid(fc), w4.repeat({3}),
                                   at::Reduction::None)),
      TWO("binary_cross_entropy_with_logits",
          lazy::binary_cross_entropy_with_logits(s, lazy::sigmoid(fc.reshape({3, 4})), w4,
                                                 Reduction::mean, lazy::abs(b4) + 1.0f),
          at::binary_cross_entropy_with_logits(s, at::sigmoid(fc.reshape({3, 4})), w4,
                                               at::abs(b4) + 1.0f, at::Reduction::Mean)),
      TWO("binary_cross_entropy_with_logits of large logits",
          lazy::binary_cross_entropy_with_logits(fc, lazy::sigmoid(fc * 0.5f), lazy::Tensor(),
                                                 Reduction::none),
          at::binary_cross_entropy_with_logits(fc, at::sigmoid(fc * 0.5f), {}, {},
                                               at::Reduction::None)),
      TWO("f16 binary_cross_entropy_with_logits",
          lazy::binary_cross_entropy_with_logits(hc, lazy::sigmoid(hc), lazy::Tensor(),
                                                 Reduction::sum),
          at::binary_cross_entropy_with_logits(hc, at::sigmoid(hc), {}, {}, at::Reduction::Sum)),
      TWO("kl_div", lazy::kl_div(lazy::log_softmax(s, 1), lazy::softmax(r, 1), Reduction::none),
          at::kl_div(at::log_softmax(s, 1), at::softmax(r, 1), at::Reduction::None, false)),
      TWO("kl_div of zero targets", lazy::kl_div(s, lazy::relu(s), Reduction::sum),
          at::kl_div(s, at::relu(s), at::Reduction::Sum, false)),
      TWO("kl_div of log targets",
          lazy::kl_div(lazy::log_softmax(s, 1), lazy::log_softmax(fc.reshape({3, 4}), 1),
                       Reduction::mean, true),
          at::kl_div(at::log_softmax(s, 1), at::log_softmax(fc.reshape({3, 4}), 1),
                     at::Reduction::Mean, true)),
      TWO("kl_div batchmean",
          lazy::kl_div(lazy::log_softmax(s, 1), lazy::softmax(fc.reshape({3, 4}), 1),
                       Reduction::batchmean),
          at::kl_div(at::log_softmax(s, 1), at::softmax(fc.reshape({3, 4}), 1), at::Reduction::Sum,
                     false) /
              3),
      TWO("binary_cross_entropy of another shape",
          lazy::binary_cross_entropy(lazy::sigmoid(s), lazy::sigmoid(s).reshape({4, 3})),
          at::binary_cross_entropy(at::sigmoid(s), at::sigmoid(s).reshape({4, 3}))),
  });
}

TEST_F(LibTorchSemantics, LossGradients) {
  const at::Tensor p = f32({1, 5, -2, 3, 4, 4.5f, 0, -1, 0.5f, 2, 1.5f, -0.25f}, {3, 4});
  const at::Tensor q = f32({0.5f, -1, 2, 0.25f, 1, 4.5f, -3, 2, 0, 0.5f, -0.5f, 1}, {3, 4});
  const at::Tensor probabilities = f32({0, 1e-30f, 0.25f, 0.5f, 0.9f, 1, 0.3f, 0.7f}, {8});
  const at::Tensor labels = f32({0, 1, 0.5f, 1, 0, 1, 0.2f, 1}, {8});
  const at::Tensor positive = f32({0.1f, 0.3f, 0.2f, 0.4f, 0.5f, 0.25f, 0.3f, 0.2f}, {2, 4});
  const at::Tensor log_probs = f32({-2, -1, -0.5f, -3, -1.5f, -0.25f, -2, -1}, {2, 4});
  expect_gradients_agree({
      GRAD("l1_loss at equal elements", lazy::l1_loss(a, b, Reduction::none),
           at::l1_loss(a, b, at::Reduction::None), p, q),
      GRAD("smooth_l1_loss at its bend", lazy::smooth_l1_loss(a, b, Reduction::none, 0.5),
           at::smooth_l1_loss(a, b, at::Reduction::None, 0.5), p, q),
      GRAD("huber_loss at its bend", lazy::huber_loss(a, b, Reduction::mean, 2.5),
           at::huber_loss(a, b, at::Reduction::Mean, 2.5), p, q),
      GRAD("binary_cross_entropy at 0 and 1",
           lazy::binary_cross_entropy(a, b, lazy::Tensor(), Reduction::none),
           at::binary_cross_entropy(a, b, {}, at::Reduction::None), probabilities, labels),
      GRAD("binary_cross_entropy weighted",
           lazy::binary_cross_entropy(lazy::sigmoid(a), b, lazy_weights()),
           at::binary_cross_entropy(at::sigmoid(a), b, torch_weights()), log_probs, positive),
      GRAD("binary_cross_entropy_with_logits",
           lazy::binary_cross_entropy_with_logits(a, lazy::sigmoid(b), lazy_weights(),
                                                  Reduction::sum, lazy_weights() * 0.5f),
           at::binary_cross_entropy_with_logits(a, at::sigmoid(b), torch_weights(),
                                                torch_weights() * 0.5f, at::Reduction::Sum),
           p, q),
      GRAD("kl_div", lazy::kl_div(a, b, Reduction::none),
           at::kl_div(a, b, at::Reduction::None, false), log_probs, positive),
      GRAD("kl_div of log targets", lazy::kl_div(a, b, Reduction::sum, true),
           at::kl_div(a, b, at::Reduction::Sum, true), log_probs, log_probs.flip({1})),
  });
}

}  // namespace
