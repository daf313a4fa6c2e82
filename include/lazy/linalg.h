// Matrix products, with PyTorch's names and semantics. They run through cuBLASLt on the GPU;
// a bias, a residual and a relu or gelu_tanh right after a product run inside the library call,
// and other work after it fuses into one generated kernel that reads the product once.
//
// Inputs are f32, f16 or bf16 (both operands the same dtype); products accumulate in f32 and
// the result has the inputs' dtype. f32 products are full FP32 unless
// set_matmul_precision("tf32") (or LAZY_MATMUL_TF32=1) allows TF32 tensor cores.
#pragma once

#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "lazy/scalar.h"
#include "lazy/tensor.h"

namespace lazy {

// torch.matmul: 1-D x 1-D is a dot product (0-d); 2-D x 2-D a matrix product; a 1-D operand is
// promoted to a matrix (a row on the left, a column on the right) and the added axis removed
// from the result; higher ranks are batches of matrices whose batch axes broadcast.
Tensor matmul(const Tensor& a, const Tensor& b,
              std::source_location loc = std::source_location::current());

// torch.bmm: [B, M, K] x [B, K, N] -> [B, M, N], no broadcasting.
Tensor bmm(const Tensor& a, const Tensor& b,
           std::source_location loc = std::source_location::current());

// torch.nn.functional.linear: x @ weight^T (+ bias), x [..., in] (1-D gives [out]), weight
// [out, in] (or [in]: x @ weight, [...]), bias [out] (or any shape that broadcasts to the
// result), all of one dtype.
Tensor linear(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias = {},
              std::source_location loc = std::source_location::current());

// torch.addmm: beta * c + alpha * (a @ b), a [M, K], b [K, N], c broadcastable to [M, N], all of
// one dtype. With beta 0, c's values are ignored (NaN in c does not propagate), as in PyTorch.
Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta = 1,
             const Scalar& alpha = 1, std::source_location loc = std::source_location::current());

// torch.baddbmm: beta * c + alpha * (a @ b), a [B, M, K], b [B, K, N], c broadcastable to
// [B, M, N], all of one dtype; beta and alpha as addmm's.
Tensor baddbmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta = 1,
               const Scalar& alpha = 1, std::source_location loc = std::source_location::current());

// torch.mm ([M, K] x [K, N]), torch.mv ([M, K] x [K] -> [M]) and torch.dot ([K] x [K] -> a 0-d
// tensor): matmul for exactly these ranks (ShapeError for others, as PyTorch's).
Tensor mm(const Tensor& a, const Tensor& b,
          std::source_location loc = std::source_location::current());
Tensor mv(const Tensor& a, const Tensor& v,
          std::source_location loc = std::source_location::current());
Tensor dot(const Tensor& a, const Tensor& b,
           std::source_location loc = std::source_location::current());

// torch.einsum, with PyTorch's rules: "ij,jk->ik", "bhqd,bhkd->bhqk", "ii->i", "ij->", ... Each
// operand has one index per axis; indices are letters (a-z, A-Z) and spaces are ignored. An index
// repeated in one operand takes its diagonal; one in no other operand and not in the output is
// summed out of its operand; the operands are then contracted left to right, each pair one
// (batched) matrix product, or a pointwise product where the pair sums no index. An index has one
// size, or size 1 in some operands, which broadcasts. An ellipsis ("...", once per operand and
// output) stands for the axes its operand's rank leaves over; the operands' ellipsis axes
// broadcast from the last, and where the output names no ellipsis they are summed. Without "->"
// the output is the ellipsis's axes, then the indices that appear once, in alphabetical order
// (upper case first). All operands have one dtype, floating where a pair sums an index (a
// matrix product, matmul's rule); sums out of one operand follow lazy::sum (integers to i64).
Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands,
              std::source_location loc = std::source_location::current());
Tensor einsum(std::string_view equation, const Tensor& a,
              std::source_location loc = std::source_location::current());
Tensor einsum(std::string_view equation, const Tensor& a, const Tensor& b,
              std::source_location loc = std::source_location::current());

// "highest" (default, also "ieee"): f32 products in full FP32. "tf32" (also "high", PyTorch's
// name): TF32 tensor cores for f32 products, about 10 mantissa bits per operand. Process-wide;
// applies to products recorded from now on (LAZY_MATMUL_TF32 gives the initial value);
// matmul_precision() says "highest" or "tf32". ValueError for any other value. f16 and bf16
// products are not affected.
void set_matmul_precision(std::string_view precision,
                          std::source_location loc = std::source_location::current());
std::string matmul_precision();

// torch.trace: the sum of a 2-d tensor's main diagonal (integers sum to i64, as sum's do).
Tensor trace(const Tensor& x, std::source_location loc = std::source_location::current());
// torch.outer: a[i] * b[j] of two 1-d tensors, their dtypes promoted as mul's. Pointwise: it
// fuses, and does not go through the matrix-product library.
Tensor outer(const Tensor& a, const Tensor& b,
             std::source_location loc = std::source_location::current());

}  // namespace lazy
