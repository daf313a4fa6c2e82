// lazy::einsum of two operands as one (batched) matrix product. Each index is a batch index (in
// both operands and the output), an M index (the first operand and the output), an N index (the
// second operand and the output) or a K index (both operands, summed). The operands are permuted
// to [batch..., M..., K...] and [batch..., K..., N...], each group of M, K and N indices is merged
// into one axis by a reshape (which copies only where strides cannot express it), the product is
// one MatMul node, and it is reshaped and permuted to the output's order.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "api/matrix_product.h"
#include "api/recording.h"
#include "lazy/linalg.h"

namespace lazy {

namespace {

constexpr std::string_view kOperandNames[] = {"first", "second"};

template <class E, class... Parts>
[[noreturn]] void refuse(std::string_view equation, std::source_location loc,
                         const Parts&... parts) {
  api::fail<E>(loc, "einsum", "\"", equation, "\": ", parts...);
}

bool is_index(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool has(const std::string& indices, char c) {
  return indices.find(c) != std::string::npos;
}

struct Subscripts {
  std::array<std::string, 2> operands;
  std::string out;
  std::string ellipsis;  // the letters standing for the ellipsis's axes, outermost first
};

// The indices that appear once, in alphabetical (ASCII) order: NumPy's implicit output after
// the ellipsis's axes.
std::string seen_once(const std::string& a, const std::string& b) {
  const std::string all = a + b;
  std::string out;
  for (char c : all)
    if (std::count(all.begin(), all.end(), c) == 1) out += c;
  std::sort(out.begin(), out.end());
  return out;
}

// Where a part's "..." starts (npos: none); a '.' anywhere else, or a second "...", is refused.
std::size_t ellipsis_at(std::string_view equation, const std::string& part,
                        std::source_location loc) {
  const std::size_t at = part.find("...");
  const std::size_t stray = part.find('.', at == std::string::npos ? 0 : at + 3);
  if (stray != std::string::npos || (at == std::string::npos && has(part, '.'))) {
    refuse<ValueError>(equation, loc,
                       "a '.' that is not part of one \"...\" per operand and output");
  }
  return at;
}

// Replaces the "..." of the operands and output (`at`, npos where none) with letters the
// equation does not use, as many as the operands' shapes leave to it, right-aligned (PyTorch
// broadcasts the two operands' ellipsis axes from the last). Without an arrow the output is the
// ellipsis's axes, then the indices seen once.
void expand_ellipsis(std::string_view equation, const std::string& text,
                     const std::array<Shape, 2>& shapes, const std::array<std::size_t, 3>& at,
                     bool explicit_output, Subscripts& s, std::source_location loc) {
  std::array<int, 2> axes{};
  for (int i = 0; i < 2; ++i) {
    if (at[i] == std::string::npos) continue;
    const std::size_t named = s.operands[i].size() - 3;
    axes[i] = shapes[i].rank() - int(named);
    if (axes[i] < 0) {
      refuse<ShapeError>(equation, loc, "the ", kOperandNames[i], " operand's shape ",
                         shapes[i].to_string(), " has fewer axes than its ", named,
                         " indices besides the ellipsis");
    }
  }
  const int count = std::max(axes[0], axes[1]);
  constexpr std::string_view kLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  for (char c : kLetters)
    if (int(s.ellipsis.size()) < count && !has(text, c)) s.ellipsis += c;
  if (int(s.ellipsis.size()) < count) {
    refuse<ValueError>(equation, loc, "uses too many letters to leave ", count,
                       " for the ellipsis's axes");
  }
  for (int i = 0; i < 2; ++i)
    if (at[i] != std::string::npos)
      s.operands[i].replace(at[i], 3, s.ellipsis.substr(std::size_t(count - axes[i])));
  if (!explicit_output) {
    std::string named[2];
    for (int i = 0; i < 2; ++i)
      for (char c : s.operands[i])
        if (!has(s.ellipsis, c)) named[i] += c;
    s.out = s.ellipsis + seen_once(named[0], named[1]);
  } else if (at[2] != std::string::npos) {
    s.out.replace(at[2], 3, s.ellipsis);
  }
}

Subscripts parse(std::string_view equation, const std::array<Shape, 2>& shapes,
                 std::source_location loc) {
  std::string text;
  for (char c : equation)
    if (!std::isspace(static_cast<unsigned char>(c))) text += c;
  const std::size_t arrow = text.find("->");
  if (arrow == std::string::npos ? text.find_first_of("->") != std::string::npos
                                 : text.find_first_of("->", arrow + 2) != std::string::npos) {
    refuse<ValueError>(equation, loc, "has a stray '-' or '>'; write one '->' before the output");
  }
  const std::string inputs = text.substr(0, arrow);
  const std::size_t comma = inputs.find(',');
  if (comma == std::string::npos || inputs.find(',', comma + 1) != std::string::npos) {
    refuse<ValueError>(equation, loc, "needs the indices of two operands, separated by a comma");
  }
  Subscripts s{{inputs.substr(0, comma), inputs.substr(comma + 1)}, {}, {}};
  if (arrow != std::string::npos) s.out = text.substr(arrow + 2);
  // The user's characters are checked before the ellipsis takes letters of its own.
  std::array<std::size_t, 3> at{};
  for (int p = 0; p < 3; ++p) {
    const std::string& part = p < 2 ? s.operands[std::size_t(p)] : s.out;
    at[std::size_t(p)] = ellipsis_at(equation, part, loc);
    for (std::size_t i = 0; i < part.size(); ++i) {
      if (!is_index(part[i]) && !(i >= at[std::size_t(p)] && i < at[std::size_t(p)] + 3))
        refuse<ValueError>(equation, loc, "'", part[i], "' is not an index; indices are letters");
    }
  }
  for (char c : s.out) {
    if (is_index(c) && !has(s.operands[0], c) && !has(s.operands[1], c))
      refuse<ValueError>(equation, loc, "output index '", c, "' is in neither operand");
  }
  expand_ellipsis(equation, text, shapes, at, arrow != std::string::npos, s, loc);
  for (const std::string* part : {&s.operands[0], &s.operands[1], &s.out}) {
    for (std::size_t i = 0; i < part->size(); ++i) {
      const char c = (*part)[i];
      if (part->find(c, i + 1) != std::string::npos) {
        refuse<ValueError>(equation, loc, "index '", c, "' repeats in ",
                           part == &s.out ? "the output" : "an operand",
                           "; diagonals and traces are not supported");
      }
    }
  }
  for (int i = 0; i < 2; ++i) {
    for (char c : s.operands[i]) {
      if (has(s.operands[1 - i], c) || has(s.out, c)) continue;
      constexpr std::string_view kWhy =
          " and not in the output: summing an axis of one operand is not supported; sum it with "
          "lazy::sum first";
      if (has(s.ellipsis, c)) {
        refuse<ValueError>(equation, loc, "an axis of the ellipsis is only in the ",
                           kOperandNames[i], " operand", kWhy);
      }
      refuse<ValueError>(equation, loc, "index '", c, "' is only in the ", kOperandNames[i],
                         " operand", kWhy);
    }
  }
  return s;
}

// The size of each index, checked against both operands' shapes: equal, or 1 in one of them
// (broadcast, as PyTorch's einsum).
using IndexSizes = std::array<std::int64_t, 128>;

IndexSizes index_sizes(std::string_view equation, const Subscripts& s,
                       const std::array<Shape, 2>& shapes, std::source_location loc) {
  IndexSizes sizes{};
  sizes.fill(-1);
  for (int i = 0; i < 2; ++i) {
    const std::string& indices = s.operands[i];
    if (int(indices.size()) != shapes[i].rank()) {
      refuse<ShapeError>(equation, loc, "the ", kOperandNames[i], " operand has shape ",
                         shapes[i].to_string(), " but ", indices.size(), " indices (\"", indices,
                         "\")");
    }
    for (std::size_t axis = 0; axis < indices.size(); ++axis) {
      std::int64_t& size = sizes[std::size_t(indices[axis])];
      const std::int64_t given = shapes[i][int(axis)];
      if (size >= 0 && size != given && size != 1 && given != 1) {
        const std::string what = has(s.ellipsis, indices[axis])
                                     ? std::string("an axis of the ellipsis")
                                     : std::string("index '") + indices[axis] + "'";
        refuse<ShapeError>(equation, loc, what, " is ", size, " in the first operand's shape ",
                           shapes[0].to_string(), " but ", given, " in the second's ",
                           shapes[1].to_string());
      }
      if (size < 0 || size == 1) size = given;
    }
  }
  return sizes;
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

// The operand, its axes of size 1 broadcast to their indices' sizes, permuted to
// [batch..., rows..., cols...] and reshaped to [batch..., R, C].
Tensor arranged(const Tensor& x, const std::string& indices, const std::string& batch,
                const std::string& rows, const std::string& cols, const IndexSizes& sizes,
                std::source_location loc) {
  Shape full;
  for (char c : indices) full.push_back(sizes[std::size_t(c)]);
  const Tensor broadcast = full == x.shape() ? x : x.expand(full, loc);
  std::vector<int> axes;
  for (char c : batch + rows + cols) axes.push_back(int(indices.find(c)));
  Shape shape = batch_shape(sizes, batch);
  shape.push_back(size_of_group(sizes, rows));
  shape.push_back(size_of_group(sizes, cols));
  return broadcast.permute(axes, loc).reshape(shape, loc);
}

}  // namespace

Tensor einsum(std::string_view equation, const Tensor& a, const Tensor& b,
              std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* x = api::node_of(a, "einsum", loc);
  ir::Node* y = api::node_of(b, "einsum", loc);
  const std::array<Shape, 2> shapes{x->shape, y->shape};
  const Subscripts s = parse(equation, shapes, loc);
  api::require_matmul_dtypes(x->dtype, y->dtype, "einsum", loc);
  const IndexSizes sizes = index_sizes(equation, s, shapes, loc);
  if (int(s.out.size()) > kMaxRank) {
    refuse<ShapeError>(equation, loc, "the output would have ", s.out.size(),
                       " axes; a tensor has at most ", kMaxRank);
  }

  std::string batch, m, n, k;
  for (char c : s.out) {
    const bool in_a = has(s.operands[0], c), in_b = has(s.operands[1], c);
    (in_a && in_b ? batch : in_a ? m : n) += c;
  }
  for (char c : s.operands[0])
    if (has(s.operands[1], c) && !has(s.out, c)) k += c;
  Shape product = batch_shape(sizes, batch);
  product.push_back(size_of_group(sizes, m));
  product.push_back(size_of_group(sizes, n));
  api::check_shape(product, "einsum", loc);

  const Tensor left = arranged(a, s.operands[0], batch, m, k, sizes, loc);
  const Tensor right = arranged(b, s.operands[1], batch, k, n, sizes, loc);
  const std::string order = batch + m + n;
  Shape unmerged;
  for (char c : order) unmerged.push_back(sizes[std::size_t(c)]);
  std::vector<int> to_output;
  for (char c : s.out) to_output.push_back(int(order.find(c)));
  return api::record_product(left, right, loc).reshape(unmerged, loc).permute(to_output, loc);
}

}  // namespace lazy
