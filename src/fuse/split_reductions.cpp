#include "fuse/split_reductions.h"

#include <absl/container/inlined_vector.h>
#include <absl/strings/str_cat.h>

#include "fuse/exp_sum_chunks.h"
#include "fuse/graph_builder.h"
#include "fuse/internal_error.h"
#include "fuse/reduction_stages.h"

namespace lazy::fuse {

namespace {

using ir::Node;
using ir::OpKind;

constexpr std::int32_t kNone = -1;

bool is_reduction(const ir::Node& node) {
  return ir::op_kind(node.op) == OpKind::reduction;
}

ReductionSplit split_of(const ir::Node& node) {
  if (!is_reduction(node)) return {};
  return choose_split(node.op, node.inputs[0]->shape, std::uint64_t(node.attrs[0]));
}

class ReductionSplitter {
 public:
  explicit ReductionSplitter(const Graph& in)
      : in_(in), match_at_(in.size(), kNone), now_(in.size()), builder_(out_) {}

  // Finds the folds to chunk and what is needed once they are; false when nothing is rewritten.
  bool find_rewrites() {
    const std::vector<bool> needed = in_.needed();
    std::vector<bool> claimed(in_.size(), false);
    for (std::uint32_t i = 0; i < in_.size(); ++i) {
      if (!needed[i]) continue;
      std::optional<ExpSumMatch> match = match_exp_sum_in_chunks(in_.nodes[i].get());
      if (!match || claimed[match->shift->trace_index]) continue;
      claimed[match->shift->trace_index] = true;
      match_at_[match->shift->trace_index] = match_at_[i] = std::int32_t(matches_.size());
      matches_.push_back(*match);
    }
    // Needed once rewritten: a chunked fold reads v (and the logsumexp shift's number) only.
    needed_ = in_.live;
    bool any = !matches_.empty();
    for (std::size_t i = in_.size(); i-- > 0;) {
      if (!needed_[i]) continue;
      if (match_at_[i] != kNone) {
        const ExpSumMatch& match = matches_[match_at_[i]];
        for (Node* input : {match.v, match.infinite_max_shift})
          if (input && input->is_pending()) needed_[input->trace_index] = true;
        continue;
      }
      for (Node* input : in_.nodes[i]->inputs)
        if (input->is_pending()) needed_[input->trace_index] = true;
      any = any || split_of(*in_.nodes[i]).kind != SplitKind::none;
    }
    return any;
  }

  Graph rewrite() {
    for (std::uint32_t i = 0; i < in_.size(); ++i) {
      Node* node = in_.nodes[i].get();
      const std::int32_t m = match_at_[i];
      if (m != kNone && matches_[m].total == node) continue;  // built with its shift
      if (m != kNone) {
        if (needed_[i] || needed_[matches_[m].total->trace_index]) build_exp_sum(matches_[m]);
        continue;
      }
      if (!needed_[i]) continue;
      absl::InlinedVector<Node*, 3> inputs;
      for (Node* input : node->inputs) inputs.push_back(now(input, *node));
      const ReductionSplit split = split_of(*node);
      if (split.kind == SplitKind::none) {
        now_[i] = builder_.keep(node, in_.recorded[i], in_.live[i], inputs);
        continue;
      }
      builder_.set_origin(*node);
      const std::uint32_t first = builder_.size();
      now_[i] = reduce_split(builder_, split, node->op, inputs[0], std::uint64_t(node->attrs[0]),
                             node->attrs[1] != 0, node->dtype, node->compute_dtype);
      stands_for(i, now_[i], first,
                 absl::StrCat("split in stages (", std::string(split_kind_name(split.kind)),
                              "): ", split.why));
    }
    carry_earlier_passes(in_, now_, out_);
    return std::move(out_);
  }

 private:
  // The rewritten graph's version of an input of `consumer`.
  Node* now(Node* input, const ir::Node& consumer) const {
    if (!input->is_pending()) return input;
    Node* version = now_[input->trace_index];
    if (!version) internal_error(consumer, "split_reductions left out an input of a needed node");
    return version;
  }

  void build_exp_sum(const ExpSumMatch& match) {
    const ir::Node& shift = *match.shift;
    builder_.set_origin(shift);
    const std::uint32_t first = builder_.size();
    Node* number =
        match.infinite_max_shift ? now(match.infinite_max_shift, shift) : match.infinite_max_shift;
    const ExpSumNodes built = build_exp_sum_in_chunks(builder_, now(match.v, shift), number);
    const std::int64_t extent = match.v->shape[match.v->shape.rank() - 1];
    const std::string why =
        absl::StrCat("rows of ", extent, " elements (at least ", kTwoStageMinElements,
                     ", a multiple of ", kTwoStageChunk, "): the max and the sum of exp(v - max) ",
                     "fold in chunks of ", kTwoStageChunk, " in one pass (online softmax)");
    now_[shift.trace_index] = built.shift;
    now_[match.total->trace_index] = built.total;
    stands_for(shift.trace_index, built.shift, first, "the shift of a chunked exp-sum: " + why);
    stands_for(match.total->trace_index, built.total, first, "a chunked exp-sum: " + why);
  }

  // Records that `replacement` now computes input node i.
  void stands_for(std::uint32_t i, Node* replacement, std::uint32_t first, std::string what) {
    const std::uint32_t at = replacement->trace_index;
    out_.recorded[at] = in_.recorded[i];
    out_.live[at] = in_.live[i];
    out_.rewrites.push_back(
        {std::uint32_t(in_.recorded[i]), in_.nodes[i]->op, std::move(what), first, at});
  }

  const Graph& in_;
  std::vector<ExpSumMatch> matches_;
  std::vector<std::int32_t> match_at_;  // for a matched fold's shift and total: its match
  std::vector<bool> needed_;            // needed once rewritten
  std::vector<Node*> now_;              // each input node's version in the rewritten graph
  Graph out_;
  GraphBuilder builder_;
};

}  // namespace

Graph split_reductions(Graph recorded) {
  ReductionSplitter splitter(recorded);
  if (splitter.find_rewrites()) return splitter.rewrite();
  return recorded;
}

}  // namespace lazy::fuse
