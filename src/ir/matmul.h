// What a MatMul node computes, and how its attrs say it.
//
// A MatMul node reads a [batch..., M, K] and b [batch..., K, N] with equal batch dims (the API
// broadcasts them with Expand views and promotes 1-D operands with reshapes) and computes
//   activation(a @ b + bias + residual)
// accumulating in f32, rounded once to its dtype (that of a and b: f32, f16 or bf16). The API
// records the bare product; the partitioner's epilogue pass (fuse/matmul_epilogues.h) folds a
// bias, a residual and an activation into it where cuBLASLt can run them in the call. Inputs after
// a and b: the bias (shape [N]) if `bias`, then the residual (the result's shape) if `residual`.
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/node.h"

namespace lazy::ir {

// gelu_tanh_grad: the product is a cotangent g, the result g * gelu_tanh'(aux), with aux (the
// forward's pre-activation, of the result's shape) one more input (cuBLASLt's DGELU).
enum class MatmulActivation : std::uint8_t { none, relu, gelu_tanh, gelu_tanh_grad };
std::string_view matmul_activation_name(MatmulActivation activation);

struct MatmulEpilogue {
  MatmulActivation activation = MatmulActivation::none;
  bool bias = false;
  bool residual = false;
  // f32 products on TF32 tensor cores (lazy::set_matmul_precision); part of what the node is, so
  // a plan made with one precision is not replayed with the other.
  bool tf32 = false;

  bool operator==(const MatmulEpilogue&) const = default;
};

// attrs[0]: activation, attrs[1]: bias, attrs[2]: residual, attrs[3]: tf32.
Attrs matmul_attrs(const MatmulEpilogue& epilogue);
MatmulEpilogue matmul_epilogue(const Node& node);

// Input positions of the epilogue's operands; -1 without one.
inline int matmul_bias_input(const MatmulEpilogue& e) {
  return e.bias ? 2 : -1;
}
inline int matmul_residual_input(const MatmulEpilogue& e) {
  return e.residual ? (e.bias ? 3 : 2) : -1;
}
inline int matmul_aux_input(const MatmulEpilogue& e) {
  return e.activation == MatmulActivation::gelu_tanh_grad ? 2 + int(e.bias) + int(e.residual) : -1;
}

// M, N and K of a MatMul node.
struct MatmulSizes {
  std::int64_t m, n, k;
};
MatmulSizes matmul_sizes(const Node& node);

}  // namespace lazy::ir
