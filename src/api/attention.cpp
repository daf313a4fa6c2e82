// lazy::scaled_dot_product_attention: PyTorch's math path in ops the partitioner already fuses.
// Every check runs before anything is recorded, so a bad call leaves the trace as it was.
#include "lazy/attention.h"

#include <cmath>
#include <limits>
#include <string>

#include "api/composites.h"
#include "api/matrix_product.h"
#include "api/recording.h"
#include "lazy/autodiff.h"
#include "lazy/factories.h"
#include "lazy/indexing.h"
#include "lazy/ops.h"
#include "lazy/reductions.h"

namespace lazy {

namespace {

constexpr std::string_view kOp = "scaled_dot_product_attention";
constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

// Under enable_gqa, [..., heads, L, A] <-> [..., kv heads, group * L, A]: each key head's group of
// query heads becomes rows of one product, so key and value are read as they are (views both
// ways where the query's heads and rows are laid out densely).
Tensor rows_of_groups(const Tensor& x, std::int64_t group, std::source_location loc) {
  Shape s = x.shape();
  const int rank = s.rank();
  s[rank - 3] /= group;
  s[rank - 2] *= group;
  return x.reshape(s, loc);
}

Tensor heads_of_rows(const Tensor& x, std::int64_t group, std::source_location loc) {
  Shape s = x.shape();
  const int rank = s.rank();
  s[rank - 3] *= group;
  s[rank - 2] /= group;
  return x.reshape(s, loc);
}

// How many query heads each key head and each value head serves under enable_gqa, after checking
// the head counts (PyTorch repeats key and value separately).
struct HeadGroups {
  std::int64_t key = 1, value = 1;
};

HeadGroups gqa_groups(const Shape& q, const Shape& k, const Shape& v, std::source_location loc) {
  if (q.rank() < 3 || k.rank() < 3 || v.rank() < 3) {
    api::fail<ShapeError>(loc, kOp, "enable_gqa needs a head axis (-3) in query, key and value, ",
                          "got shapes ", q.to_string(), ", ", k.to_string(), " and ",
                          v.to_string());
  }
  const std::int64_t heads = q[q.rank() - 3], key_heads = k[k.rank() - 3];
  const std::int64_t value_heads = v[v.rank() - 3];
  if (heads == key_heads && heads == value_heads) return {};  // as PyTorch: nothing to repeat
  if (key_heads == 0 || value_heads == 0 || heads % key_heads != 0 || heads % value_heads != 0) {
    api::fail<ShapeError>(loc, kOp, "enable_gqa needs key and value head counts that divide ",
                          "query's, got ", heads, " query heads against ", key_heads, " key and ",
                          value_heads, " value heads");
  }
  return {heads / key_heads, heads / value_heads};
}

// Softmax over the last axis that gives zeros for a row of only -inf (PyTorch's _safe_softmax):
// such a row is shifted by 0 and divided by 1. The shift carries no gradient, as softmax's value
// does not depend on it.
Tensor softmax_of_attendable(const Tensor& scores, std::source_location loc) {
  const Tensor top = stop_gradient(max(scores, -1, true, loc), loc);
  const Tensor shift = where(eq(top, kMinusInf, loc), 0.0, top, loc);
  const Tensor weights = exp(sub(scores, shift, loc), loc);
  const Tensor total = sum(weights, -1, true, loc);
  return div(weights, where(eq(total, 0.0, loc), 1.0, total, loc), loc);
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p,
                                    bool is_causal, std::optional<double> scale, bool enable_gqa,
                                    std::optional<std::uint64_t> dropout_seed,
                                    std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* q = api::node_of(query, kOp, loc);
  ir::Node* k = api::node_of(key, kOp, loc);
  ir::Node* v = api::node_of(value, kOp, loc);
  api::require_matmul_dtypes(q->dtype, k->dtype, kOp, loc);
  api::require_matmul_dtypes(q->dtype, v->dtype, kOp, loc);
  if (q->shape.rank() < 2 || k->shape.rank() < 2 || v->shape.rank() < 2) {
    api::fail<ShapeError>(loc, kOp, "needs query [..., L, E], key [..., S, E] and value ",
                          "[..., S, Ev], got shapes ", q->shape.to_string(), ", ",
                          k->shape.to_string(), " and ", v->shape.to_string());
  }
  if (!(dropout_p >= 0 && dropout_p <= 1))
    api::fail<ValueError>(loc, kOp, "dropout_p must be in [0, 1], got ", dropout_p);
  if (dropout_p > 0 && !dropout_seed) {
    api::fail<ValueError>(loc, kOp, "dropout_p ", dropout_p, " needs a dropout_seed (lazy draws ",
                          "random numbers from explicit seeds)");
  }
  if (attn_mask && is_causal) {
    api::fail<ValueError>(loc, kOp, "takes attn_mask or is_causal, not both; fold the causal ",
                          "mask into attn_mask");
  }
  const HeadGroups groups =
      enable_gqa ? gqa_groups(q->shape, k->shape, v->shape, loc) : HeadGroups{};
  Shape key_shape = k->shape, value_shape = v->shape;
  if (enable_gqa) {  // as the query reads them
    key_shape[key_shape.rank() - 3] *= groups.key;
    value_shape[value_shape.rank() - 3] *= groups.value;
  }
  std::swap(key_shape[key_shape.rank() - 1], key_shape[key_shape.rank() - 2]);
  const Shape scores = api::product_shapes(q->shape, key_shape, kOp, loc).result;
  const Shape result = api::product_shapes(scores, value_shape, kOp, loc).result;
  if (attn_mask) {
    ir::Node* m = api::node_of(*attn_mask, kOp, loc);
    if (m->dtype != DType::bool_ && m->dtype != q->dtype && m->dtype != DType::f32) {
      api::fail<DTypeError>(loc, kOp, "attn_mask must be bool, f32 or query's dtype, got ",
                            dtype_name(m->dtype));
    }
    api::require_broadcasts_to(m->shape, scores, "attn_mask", kOp, loc);
  }
  // No keys (or nothing to compute): zeros, as PyTorch's empty softmax and product give.
  const std::int64_t rows = scores[scores.rank() - 2], columns = scores[scores.rank() - 1];
  if (columns == 0 || result.numel() == 0) return zeros(result, q->dtype, loc);

  const std::int64_t depth = q->shape[q->shape.rank() - 1];
  const double factor = scale.value_or(1.0 / std::sqrt(double(depth)));
  Tensor product = api::matmul_as(groups.key > 1 ? rows_of_groups(query, groups.key, loc) : query,
                                  key.transpose(-2, -1, loc), kOp, loc);
  if (groups.key > 1) product = heads_of_rows(product, groups.key, loc);
  Tensor weights = api::in_compute_type(product, loc, [&](const Tensor& s) {
    // With E = 0 the scores are 0 whatever the scale, as PyTorch's, which scales q and k.
    Tensor masked = depth > 0 ? mul(s, factor, loc) : s;
    if (is_causal)
      masked =
          where(tril(ones({rows, columns}, DType::bool_, loc), 0, loc), masked, kMinusInf, loc);
    if (attn_mask && attn_mask->dtype() == DType::bool_) {
      masked = where(*attn_mask, masked, kMinusInf, loc);
    } else if (attn_mask) {
      masked = add(masked, *attn_mask, loc);
    }
    return softmax_of_attendable(masked, loc);
  });
  if (dropout_p > 0) weights = dropout(weights, dropout_p, *dropout_seed, true, loc);
  if (groups.value == 1) return api::matmul_as(weights, value, kOp, loc);
  return heads_of_rows(api::matmul_as(rows_of_groups(weights, groups.value, loc), value, kOp, loc),
                       groups.value, loc);
}

}  // namespace lazy
