// The gradient rule of each primitive of the op table (ir/op.h): given the cotangent of a node's
// output, the cotangents of its inputs. Rules are written with the public ops, so a backward is
// recorded, fused and run like any other code.
#pragma once

#include <source_location>
#include <span>
#include <vector>

#include <absl/container/inlined_vector.h>

#include "ir/node.h"
#include "lazy/tensor.h"

namespace lazy::autodiff {

// What an Alias node (ir/op.h) is, in its attrs[0]: a function's input under differentiation,
// through which an outer differentiation passes (grad of grad), or a stop_gradient.
enum class AliasRole : std::int64_t { input = 0, stops_gradient = 1 };
inline bool stops_gradient(const ir::Node& node) {
  return node.op == ir::Op::Alias && node.attrs[0] == std::int64_t(AliasRole::stops_gradient);
}

struct VjpArgs {
  const ir::Node& node;
  std::span<const Tensor> inputs;   // handles on node.inputs
  const Tensor& output;             // a handle on the node
  const Tensor& cotangent;          // of the node's shape and dtype
  const std::vector<bool>& wanted;  // per input: it needs its cotangent (a cat has any number)
  std::source_location loc;         // the node's: backward ops name the forward op's line

  bool wants(int input) const { return wanted[std::size_t(input)]; }
};

// One per input: an undefined Tensor where none flows (not wanted, or not differentiable). Each
// of its input's shape or one that broadcasts from it, and of any floating dtype: the caller sums
// and converts. For an input that is an Expand, a rule may give the cotangent of the Expand's
// source instead, of that source's shape, having summed the broadcast itself.
using InputCotangents = absl::InlinedVector<Tensor, 4>;
using VjpRule = InputCotangents (*)(const VjpArgs&);

// The cotangent of a one-input op.
inline InputCotangents only(Tensor x) {
  InputCotangents out;
  out.push_back(std::move(x));
  return out;
}

// A cotangent for input i when it is wanted, computed only then.
template <class Compute>
Tensor if_wanted(const VjpArgs& a, int input, Compute compute) {
  return a.wants(input) ? compute() : Tensor();
}

enum class Differentiability : std::uint8_t {
  rule,     // vjp_rule gives the cotangents
  none,     // no gradient flows back (comparisons, rounding, generators, argmax)
  missing,  // differentiable, but without a rule yet: taking its gradient is an error
};

Differentiability differentiability(ir::Op op);
// The rule of an op whose differentiability() is `rule`.
VjpRule vjp_rule(ir::Op op);

}  // namespace lazy::autodiff
