// Matrix products (lazy/linalg.h) but einsum (api/einsum.cpp): every check first, then one MatMul
// node between views, and for linear and addmm the ordinary ops after it.
#include <algorithm>

#include "api/matrix_product.h"
#include "api/recording.h"
#include "ir/matmul.h"
#include "ir/type_promotion.h"
#include "lazy/factories.h"
#include "lazy/linalg.h"
#include "lazy/ops.h"

namespace lazy {

namespace api {

namespace {

std::string both(const Shape& a, const Shape& b) {
  return a.to_string() + " and " + b.to_string();
}

}  // namespace

void require_matmul_dtypes(DType a, DType b, std::string_view op, std::source_location loc) {
  if (!is_floating(a) || !is_floating(b)) {
    fail<DTypeError>(loc, op, "integer and bool matrix products are not supported (got ",
                     dtype_name(a), " and ", dtype_name(b), "); cast to f32 with .to(lazy::f32)");
  }
  if (a != b) {
    fail<DTypeError>(loc, op, "both operands must have one dtype, got ", dtype_name(a), " and ",
                     dtype_name(b), "; cast one with .to()");
  }
}

void require_broadcasts_to(const Shape& operand, const Shape& result, std::string_view what,
                           std::string_view op, std::source_location loc) {
  const int lead = result.rank() - operand.rank();
  bool fits = lead >= 0;
  for (int axis = 0; fits && axis < operand.rank(); ++axis)
    fits = operand[axis] == result[lead + axis] || operand[axis] == 1;
  if (!fits) {
    fail<ShapeError>(loc, op, what, " of shape ", operand.to_string(),
                     " does not broadcast to the product's shape ", result.to_string());
  }
}

ProductShapes product_shapes(const Shape& a, const Shape& b, std::string_view op,
                             std::source_location loc) {
  if (a.rank() == 0 || b.rank() == 0) {
    fail<ShapeError>(loc, op, "both operands need at least one axis, got shapes ", both(a, b));
  }
  // A 1-D operand is a row on the left and a column on the right.
  const std::int64_t m = a.rank() == 1 ? 1 : a[a.rank() - 2];
  const std::int64_t k = a[a.rank() - 1];
  const std::int64_t inner = b.rank() == 1 ? b[0] : b[b.rank() - 2];
  const std::int64_t n = b.rank() == 1 ? 1 : b[b.rank() - 1];
  if (k != inner) {
    fail<ShapeError>(loc, op, "cannot multiply shapes ", both(a, b), ": the first's last axis (", k,
                     ") differs from the second's ", b.rank() == 1 ? "only" : "second-to-last",
                     " axis (", inner, ")");
  }
  // The axes before the last two are batch axes, aligned from the right and broadcast.
  const int a_batch = std::max(0, a.rank() - 2);
  const int b_batch = std::max(0, b.rank() - 2);
  const int batch_rank = std::max(a_batch, b_batch);
  Shape batch;
  for (int axis = 0; axis < batch_rank; ++axis) {
    const int in_a = axis - (batch_rank - a_batch), in_b = axis - (batch_rank - b_batch);
    const std::int64_t da = in_a >= 0 ? a[in_a] : 1, db = in_b >= 0 ? b[in_b] : 1;
    if (da != db && da != 1 && db != 1) {
      fail<ShapeError>(loc, op, "the batch axes of shapes ", both(a, b), " do not broadcast (", da,
                       " against ", db, ")");
    }
    batch.push_back(da == 1 ? db : da);
  }
  ProductShapes shapes{batch, batch, batch};
  shapes.left.push_back(m);
  shapes.left.push_back(k);
  shapes.right.push_back(k);
  shapes.right.push_back(n);
  Shape product = batch;
  product.push_back(m);
  product.push_back(n);
  for (const Shape* s : {&shapes.left, &shapes.right, &product}) check_shape(*s, op, loc);
  if (a.rank() > 1) shapes.result.push_back(m);
  if (b.rank() > 1) shapes.result.push_back(n);
  return shapes;
}

Tensor record_product(const Tensor& a, const Tensor& b, std::source_location loc) {
  ir::Node* left = a.node();
  ir::Node* right = b.node();
  Shape shape = left->shape;
  shape[shape.rank() - 1] = right->shape[right->shape.rank() - 1];
  ir::NodePtr node = ir::make_node(ir::Op::MatMul, left->dtype, shape, loc);
  node->compute_dtype = DType::f32;  // cuBLASLt accumulates every dtype in f32
  node->attrs = ir::matmul_attrs({.tf32 = left->dtype == DType::f32 && matmul_tf32()});
  node->inputs.push_back(left);
  node->inputs.push_back(right);
  return record(node);
}

Tensor matmul_as(const Tensor& a, const Tensor& b, std::string_view op, std::source_location loc) {
  sync_if_trace_full();
  ir::Node* x = node_of(a, op, loc);
  ir::Node* y = node_of(b, op, loc);
  require_matmul_dtypes(x->dtype, y->dtype, op, loc);
  const ProductShapes shapes = product_shapes(x->shape, y->shape, op, loc);
  const std::int64_t k = x->shape[x->shape.rank() - 1];
  const Tensor left = x->shape.rank() == 1 ? a.reshape({1, k}, loc) : a;
  const Tensor right = y->shape.rank() == 1 ? b.reshape({k, 1}, loc) : b;
  const Tensor product =
      record_product(left.expand(shapes.left, loc), right.expand(shapes.right, loc), loc);
  return product.reshape(shapes.result, loc);  // drops the axes a 1-D operand gained
}

}  // namespace api

Tensor matmul(const Tensor& a, const Tensor& b, std::source_location loc) {
  return api::matmul_as(a, b, "matmul", loc);
}

Tensor bmm(const Tensor& a, const Tensor& b, std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& x = api::node_of(a, "bmm", loc)->shape;
  const Shape& y = api::node_of(b, "bmm", loc)->shape;
  if (x.rank() != 3 || y.rank() != 3) {
    api::fail<ShapeError>(loc, "bmm", "needs [B, M, K] and [B, K, N], got shapes ", api::both(x, y),
                          "; lazy::matmul broadcasts other ranks");
  }
  if (x[0] != y[0]) {
    api::fail<ShapeError>(loc, "bmm", "batch sizes of shapes ", api::both(x, y), " differ (", x[0],
                          " and ", y[0], "); lazy::matmul broadcasts a batch of 1");
  }
  return api::matmul_as(a, b, "bmm", loc);
}

Tensor linear(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias,
              std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* in = api::node_of(x, "linear", loc);
  ir::Node* w = api::node_of(weight, "linear", loc);
  api::require_matmul_dtypes(in->dtype, w->dtype, "linear", loc);
  const Shape& s = in->shape;
  // A weight [in] gives x @ weight, without x's last axis (PyTorch's 1-d weight).
  const bool vector = w->shape.rank() == 1;
  if ((w->shape.rank() != 2 && !vector) || s.rank() == 0 ||
      s[s.rank() - 1] != w->shape[w->shape.rank() - 1]) {
    api::fail<ShapeError>(loc, "linear",
                          "needs an input [..., in] and a weight [out, in] or [in], got shapes ",
                          api::both(s, w->shape));
  }
  std::vector<std::int64_t> result(s.begin(), s.end());
  if (vector)
    result.pop_back();
  else
    result.back() = w->shape[0];
  if (bias) {
    ir::Node* b = api::node_of(*bias, "linear", loc);
    if (b->dtype != in->dtype) {
      api::fail<DTypeError>(loc, "linear", "the bias is ", dtype_name(b->dtype), " and the input ",
                            dtype_name(in->dtype), "; cast the bias with .to()");
    }
    api::require_broadcasts_to(b->shape, Shape(result), "the bias", "linear", loc);
    // An empty inner size adds no product, so a -0 in the bias stays -0 (PyTorch's addmm).
    if (s[s.rank() - 1] == 0) return bias->expand(Shape(result), loc);
  }
  const Tensor product =
      api::matmul_as(x, vector ? weight : weight.transpose(0, 1, loc), "linear", loc);
  return bias ? add(product, *bias, loc) : product;
}

namespace {

// addmm and baddbmm: beta * c + alpha * (a @ b) with a and b of `rank` (2, or 3 with one batch).
// beta and alpha of 1 record no multiply, so that addmm(c, a, b) is a product plus c, which the
// partitioner folds into the call; beta of 0 ignores c's values (NaN in c does not propagate, as
// in PyTorch) but not its shape, and alpha of 0 the product's.
Tensor scaled_product_plus(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta,
                           const Scalar& alpha, int rank, std::string_view op,
                           std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* added = api::node_of(c, op, loc);
  ir::Node* x = api::node_of(a, op, loc);
  ir::Node* y = api::node_of(b, op, loc);
  api::require_matmul_dtypes(x->dtype, y->dtype, op, loc);
  if (added->dtype != x->dtype) {
    api::fail<DTypeError>(loc, op, "c is ", dtype_name(added->dtype), " and the matrices ",
                          dtype_name(x->dtype), "; cast c with .to()");
  }
  const Shape &xs = x->shape, &ys = y->shape;
  if (xs.rank() != rank || ys.rank() != rank || (rank == 3 && xs[0] != ys[0])) {
    api::fail<ShapeError>(
        loc, op, "needs ",
        rank == 2 ? "matrices [M, K] and [K, N]" : "batches [B, M, K] and [B, K, N] of one size B",
        ", got shapes ", api::both(xs, ys));
  }
  const Shape product = api::product_shapes(xs, ys, op, loc).result;
  api::require_broadcasts_to(added->shape, product, "c", op, loc);
  const DType number_dtype = ir::compute_type_of(x->dtype);
  api::check_scalar_fits(beta, number_dtype, op, loc);
  api::check_scalar_fits(alpha, number_dtype, op, loc);

  const auto scaled_c = [&] { return beta.to_double() == 1 ? c : mul(c, beta, loc); };
  // alpha of 0 or an empty inner size leaves the product out, as PyTorch's: NaN or inf in it
  // does not propagate, and a -0 in c stays -0.
  if (alpha.to_double() == 0 || xs[rank - 1] == 0) {
    return beta.to_double() == 0 ? zeros(product, x->dtype, loc) : scaled_c().expand(product, loc);
  }
  Tensor result = api::matmul_as(a, b, op, loc);
  if (alpha.to_double() != 1) result = mul(result, alpha, loc);
  return beta.to_double() == 0 ? result : add(result, scaled_c(), loc);
}

// mm, mv and dot: matmul of operands of exactly these ranks, as PyTorch's refuse others.
Tensor product_of_ranks(const Tensor& a, const Tensor& b, int rank_a, int rank_b,
                        std::string_view op, std::string_view wanted, std::source_location loc) {
  api::sync_if_trace_full();
  const Shape& x = api::node_of(a, op, loc)->shape;
  const Shape& y = api::node_of(b, op, loc)->shape;
  if (x.rank() != rank_a || y.rank() != rank_b) {
    api::fail<ShapeError>(loc, op, "needs ", wanted, ", got shapes ", api::both(x, y),
                          "; lazy::matmul takes other ranks");
  }
  return api::matmul_as(a, b, op, loc);
}

}  // namespace

Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta,
             const Scalar& alpha, std::source_location loc) {
  return scaled_product_plus(c, a, b, beta, alpha, 2, "addmm", loc);
}

Tensor baddbmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta,
               const Scalar& alpha, std::source_location loc) {
  return scaled_product_plus(c, a, b, beta, alpha, 3, "baddbmm", loc);
}

Tensor mm(const Tensor& a, const Tensor& b, std::source_location loc) {
  return product_of_ranks(a, b, 2, 2, "mm", "matrices [M, K] and [K, N]", loc);
}

Tensor mv(const Tensor& a, const Tensor& v, std::source_location loc) {
  return product_of_ranks(a, v, 2, 1, "mv", "a matrix [M, K] and a vector [K]", loc);
}

Tensor dot(const Tensor& a, const Tensor& b, std::source_location loc) {
  return product_of_ranks(a, b, 1, 1, "dot", "two vectors of one size", loc);
}

}  // namespace lazy
