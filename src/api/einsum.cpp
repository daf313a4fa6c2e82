// lazy::einsum as PyTorch computes it: each operand's repeated indices become diagonals and the
// indices nothing else names are summed out of it; then the operands are contracted left to
// right, each pair as one (batched) matrix product. For a pair, an index is a batch index (in
// both and needed later), an M index (the left only), an N index (the right only) or a K index
// (both, needed by nothing after). The pair is permuted to [batch..., M..., K...] and
// [batch..., K..., N...], each group merged into one axis by a reshape (which copies only where
// strides cannot express it), multiplied as one MatMul node (or, with no K index, broadcast and
// multiplied pointwise, which fuses), and reshaped back. The result is permuted to the output.
#include <string>
#include <vector>

#include "api/einsum_equation.h"
#include "api/matrix_product.h"
#include "api/recording.h"
#include "lazy/indexing.h"
#include "lazy/linalg.h"
#include "lazy/ops.h"
#include "lazy/reductions.h"

namespace lazy {

namespace {

using api::names_index;

using IndexSizes = std::array<std::int64_t, 128>;

// A tensor with one index per axis.
struct Term {
  Tensor tensor;
  std::string indices;
};

// The term with each repeated index taken along its diagonal (as a last axis, torch.diagonal's
// place) and the indices `needed` does not name summed out.
Term reduced(Term term, std::string_view needed, std::source_location loc) {
  for (std::size_t i = 0; i < term.indices.size();) {
    const char c = term.indices[i];
    const std::size_t again = term.indices.find(c, i + 1);
    if (again == std::string::npos) {
      ++i;
      continue;
    }
    term.tensor = diagonal(term.tensor, 0, int(i), int(again), loc);
    term.indices.erase(again, 1);
    term.indices.erase(i, 1);
    term.indices += c;
  }
  std::vector<int> summed;
  std::string kept;
  for (std::size_t i = 0; i < term.indices.size(); ++i) {
    if (names_index(needed, term.indices[i])) {
      kept += term.indices[i];
    } else {
      summed.push_back(int(i));
    }
  }
  if (summed.empty()) return term;
  return {sum(term.tensor, Axes(std::span<const int>(summed)), false, loc), kept};
}

// The indices of `indices` that `needed` names, once each: what reduced() leaves, in some order.
std::string distinct_needed(std::string_view indices, std::string_view needed) {
  std::string kept;
  for (char c : indices)
    if (names_index(needed, c) && !names_index(kept, c)) kept += c;
  return kept;
}

std::int64_t size_of_group(const IndexSizes& sizes, const std::string& group) {
  std::int64_t size = 1;
  for (char c : group) size *= sizes[std::size_t(c)];
  return size;
}

// The product's batch axes: one per batch index, or all merged into one where there are too
// many to add the two matrix axes.
Shape batch_shape(const IndexSizes& sizes, const std::string& batch) {
  Shape shape;
  if (int(batch.size()) > kMaxRank - 2) {
    shape.push_back(size_of_group(sizes, batch));
  } else {
    for (char c : batch) shape.push_back(sizes[std::size_t(c)]);
  }
  return shape;
}

// The term, its axes of size 1 broadcast to their indices' sizes, permuted to
// [batch..., rows..., cols...] and reshaped to [batch..., R, C].
Tensor arranged(const Term& term, const std::string& batch, const std::string& rows,
                const std::string& cols, const IndexSizes& sizes, std::source_location loc) {
  Shape full;
  for (char c : term.indices) full.push_back(sizes[std::size_t(c)]);
  const Tensor broadcast =
      full == term.tensor.shape() ? term.tensor : term.tensor.expand(full, loc);
  std::vector<int> axes;
  for (char c : batch + rows + cols) axes.push_back(int(term.indices.find(c)));
  Shape shape = batch_shape(sizes, batch);
  shape.push_back(size_of_group(sizes, rows));
  shape.push_back(size_of_group(sizes, cols));
  return broadcast.permute(axes, loc).reshape(shape, loc);
}

// The indices of left and right's contraction that `needed` names: the batch, then M, then N.
struct PairIndices {
  std::string batch, m, n, k;
  std::string result() const { return batch + m + n; }
};

PairIndices pair_indices(const std::string& left, const std::string& right,
                         std::string_view needed) {
  PairIndices p;
  for (char c : left) {
    const bool kept = names_index(needed, c);
    (names_index(right, c) ? (kept ? p.batch : p.k) : p.m) += c;
  }
  for (char c : right)
    if (!names_index(left, c)) p.n += c;
  return p;
}

Term contracted(const Term& left, const Term& right, const PairIndices& p, const IndexSizes& sizes,
                std::source_location loc) {
  Tensor product;
  if (p.k.empty()) {  // an outer or elementwise product: no sum, so no library call
    product = mul(arranged(left, p.batch, p.m, "", sizes, loc),
                  arranged(right, p.batch, "", p.n, sizes, loc), loc);
  } else {
    product = api::record_product(arranged(left, p.batch, p.m, p.k, sizes, loc),
                                  arranged(right, p.batch, p.k, p.n, sizes, loc), loc);
  }
  Shape unmerged;
  for (char c : p.result()) unmerged.push_back(sizes[std::size_t(c)]);
  return {product.reshape(unmerged, loc), p.result()};
}

// The indices still needed once operands [0, next) are contracted: the output's and those of
// the operands from `next` on.
std::string needed_after(const api::EinsumEquation& e, std::size_t next) {
  std::string needed = e.out;
  for (std::size_t i = next; i < e.operands.size(); ++i) needed += e.operands[i];
  return needed;
}

}  // namespace

Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands,
              std::source_location loc) {
  api::sync_if_trace_full();
  std::vector<Shape> shapes;
  for (const Tensor& operand : operands)
    shapes.push_back(api::node_of(operand, "einsum", loc)->shape);
  const api::EinsumEquation e = api::read_einsum(equation, shapes, loc);
  // Checked before anything is recorded: one dtype, floating for a pair that sums an index (a
  // matrix product), and every intermediate small enough for a tensor.
  std::string live = distinct_needed(e.operands[0], needed_after(e, 1));
  for (std::size_t i = 1; i < operands.size(); ++i) {
    const std::string needed = needed_after(e, i + 1);
    const PairIndices p = pair_indices(live, distinct_needed(e.operands[i], needed + live), needed);
    if (!p.k.empty()) {
      api::require_matmul_dtypes(operands[0].dtype(), operands[i].dtype(), "einsum", loc);
    } else if (operands[i].dtype() != operands[0].dtype()) {
      api::fail<DTypeError>(loc, "einsum", "all operands must have one dtype, got ",
                            dtype_name(operands[0].dtype()), " and ",
                            dtype_name(operands[i].dtype()), "; cast one with .to()");
    }
    live = p.result();
    if (int(live.size()) > kMaxRank) {
      api::fail<ShapeError>(loc, "einsum", "\"", equation, "\": ",
                            i + 1 == operands.size() ? "the output" : "an intermediate result",
                            " would have ", live.size(), " axes; a tensor has at most ", kMaxRank);
    }
  }

  Term result = reduced({operands[0], e.operands[0]}, needed_after(e, 1), loc);
  for (std::size_t i = 1; i < operands.size(); ++i) {
    const std::string needed = needed_after(e, i + 1);
    const Term right = reduced({operands[i], e.operands[i]}, needed + result.indices, loc);
    const PairIndices p = pair_indices(result.indices, right.indices, needed);
    result = contracted(result, right, p, e.sizes, loc);
  }
  std::vector<int> to_output;
  for (char c : e.out) to_output.push_back(int(result.indices.find(c)));
  return result.tensor.permute(to_output, loc);
}

Tensor einsum(std::string_view equation, const Tensor& a, std::source_location loc) {
  return einsum(equation, std::vector<Tensor>{a}, loc);
}

Tensor einsum(std::string_view equation, const Tensor& a, const Tensor& b,
              std::source_location loc) {
  return einsum(equation, std::vector<Tensor>{a, b}, loc);
}

}  // namespace lazy
