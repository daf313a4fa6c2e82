#include "fuse/build_terms.h"

#include <algorithm>
#include <array>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "fuse/dense_operands.h"
#include "fuse/gather_pushdown.h"
#include "fuse/internal_error.h"
#include "fuse/kernel_arguments.h"
#include "fuse/row_walk.h"
#include "fuse/term_memo.h"
#include "fuse/view_layout.h"
#include "ir/gather.h"

namespace lazy::fuse {

namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;
using ir::OpKind;

// A term the walk could not build: it added a cut instead.
constexpr std::int32_t kFailed = -1;

Term make_term(Term::Kind kind, std::uint32_t source) {
  Term term;
  term.kind = kind;
  term.source = source;
  return term;
}

class TermBuilder {
 public:
  explicit TermBuilder(Partition& p) : p_(p), graph_(p.graph) {
    for (std::size_t slot = 0; slot < graph_.externals.size(); ++slot)
      slot_of_[graph_.externals[slot].get()] = std::uint32_t(slot);
    memo_.reserve(graph_.size() + graph_.externals.size());
  }

  // Builds every region's terms; false when some needed new cuts first (one pass adds them all).
  bool build_all() {
    bool all_built = true;
    for (std::size_t r = 0; r < p_.regions.size(); ++r) {
      current_ = std::int32_t(r);
      memo_.clear();
      per_row_ = false;
      concat_parts_ = 0;
      Region& region = p_.regions[r];
      region.terms.reserve(32);  // most regions' terms: growing the vector moved every term
      const bool built = region.matmul    ? build_matmul_terms(region)
                         : region.scatter ? build_scatter_terms(region)
                         : region.row     ? build_row_terms(region)
                                          : build_terms(region);
      if (built) continue;
      if (!cut_added_) {
        internal_error(first_node(region),
                       "build_terms could not build a region and found no cut that would let it");
      }
      all_built = false;
    }
    return all_built;
  }

 private:
  bool build_terms(Region& region) {
    for (const Root& root : region.roots) {
      std::int32_t term;
      std::vector<const Node*> path;
      if (root.external_copy) {
        term = add_load(root.node, true, graph_.externals[root.node]->data->layout);
      } else if (region.reduction) {
        // The reduced expression, read through the permutation of the region.
        if (region.reduction->permute) path.push_back(region.reduction->permute.get());
        term = visit(graph_.nodes[root.node]->inputs[0], path);
      } else if (region.scan || region.top_k) {
        term = visit(graph_.nodes[root.node]->inputs[0], path);  // the scanned expression
      } else {
        term = visit(graph_.nodes[root.node].get(), path);
      }
      if (term == kFailed) return false;
      region.root_terms.push_back(term);
    }
    return true;
  }

  // A product's terms: each input loaded as it sits in memory, else written densely first.
  bool build_matmul_terms(Region& region) {
    const Node& node = *graph_.nodes[region.matmul->node];
    if (!load_inputs(region, node, CutReason::matmul_layout, region.matmul->input_terms))
      return false;
    std::vector<ir::Layout> layouts;
    for (const std::int32_t term : region.matmul->input_terms)
      layouts.push_back(region.terms[term].layout);
    const std::optional<int> dense = matmul_input_to_write(node, layouts, region.matmul->problem);
    return !dense || write_densely(node.inputs[*dense], node, CutReason::matmul_layout);
  }

  // A scatter's terms: a load of each input, as it sits in memory.
  bool build_scatter_terms(Region& region) {
    const Node& node = *graph_.nodes[region.scatter->node];
    return load_inputs(region, node, CutReason::scatter_operand, region.scatter->input_terms);
  }

  // A load of each input of `reader` as it sits in memory, into `terms`; false on a cut (one not
  // in memory as it is, a broadcast scalar, is written densely).
  bool load_inputs(Region& region, const Node& reader, CutReason why,
                   std::vector<std::int32_t>& terms) {
    terms.clear();
    for (Node* input : reader.inputs) {
      std::vector<const Node*> path;
      const std::int32_t term = visit(input, path);
      if (term == kFailed) return false;
      if (region.terms[term].kind != Term::Kind::load) return write_densely(input, reader, why);
      terms.push_back(term);
    }
    return true;
  }

  // Cuts `input` of `reader` to be written densely, once a pass; false (build the terms again).
  bool write_densely(Node* input, const Node& reader, CutReason why) {
    const std::optional<std::uint32_t> slot =
        input->is_pending() ? std::nullopt : std::optional(slot_of_.at(input));
    if (written_densely_.insert(input).second) cut_to_write_densely(p_, *input, slot, reader, why);
    cut_added_ = true;
    return false;
  }

  // A row region's terms: each reduction's folded value, then its roots (per element or row).
  // Each access walks rows and the folded extent with a stride each, else its reductions leave.
  bool build_row_terms(Region& region) {
    RowInfo& row = *region.row;
    row.reduction_terms.clear();
    std::vector<const Node*> path;
    per_row_ = false;
    for (std::uint32_t reduction : row.reductions) {
      const std::int32_t term = visit(graph_.nodes[reduction]->inputs[0], path);
      if (term == kFailed) return false;
      row.reduction_terms.push_back(term);
    }
    for (const Root& root : region.roots) {
      per_row_ = root.per_row;
      const Node& node = *graph_.nodes[root.node];
      const std::int32_t term = ir::op_kind(node.op) == OpKind::reduction
                                    ? reduced_term(root.node)
                                    : visit(graph_.nodes[root.node].get(), path);
      if (term == kFailed) return false;
      region.root_terms.push_back(term);
    }
    per_row_ = false;
    const std::optional<Refusal> refused = row_access_refusal(region);
    if (!refused) return true;
    for (std::uint32_t reduction : row.reductions) p_.cuts.no_row[reduction] = *refused;
    cut_added_ = true;
    return false;
  }

  Region& current() { return p_.regions[current_]; }

  // A node a region computes, to name it in an internal error.
  const Node& first_node(const Region& region) const {
    if (region.row && !region.row->reductions.empty())
      return *graph_.nodes[region.row->reductions[0]];
    const Root& root = region.roots.at(0);
    return root.external_copy ? *graph_.externals[root.node] : *graph_.nodes[root.node];
  }

  std::int32_t reduced_term(std::uint32_t reduction) {
    const std::vector<Term>& terms = current().terms;
    for (std::size_t t = 0; t < terms.size(); ++t)
      if (terms[t].kind == Term::Kind::reduced && terms[t].source == reduction)
        return std::int32_t(t);
    return add_term(make_term(Term::Kind::reduced, reduction));
  }

  std::int32_t add_term(Term term) {
    Region& region = current();
    region.terms.push_back(std::move(term));
    return std::int32_t(region.terms.size() - 1);
  }

  std::int32_t add_load(std::uint32_t source, bool external, const ir::Layout& layout) {
    Term term = make_term(Term::Kind::load, source);
    term.external = external;
    term.layout = layout;
    term.gather = take_pushed_gather();
    return add_term(std::move(term));
  }

  // The gather the last composed layout passed through (gather_pushdown.h), for its load.
  std::optional<Term::Gather> take_pushed_gather() {
    if (!pushed_) return std::nullopt;
    const PushedGather g = *std::exchange(pushed_, std::nullopt);
    return Term::Gather{pushed_picks_.at(g.node), g.stride, g.bound, g.node->trace_index};
  }

  // Layout of `views` over `base`; on failure records the cut that will make it expressible.
  std::optional<ir::Layout> compose_or_cut(const ir::Layout& base,
                                           const std::vector<const Node*>& views) {
    const Node* failed = nullptr;
    std::optional<GatheredLayout> gathered = compose_through_gather(base, views, &failed);
    std::optional<ir::Layout> layout;
    if (gathered) layout = gathered->layout, pushed_ = gathered->gather;
    if (layout && per_row_ && layout->shape.rank() > 0)
      layout = per_row_layout(*layout, current().shape, current().row->folded_axes);
    if (!layout) {
      Node* input = failed->inputs[0];
      if (input->is_pending()) {
        cut_added_ =
            p_.cuts.add_read_back(input->trace_index, CutReason::reshape_not_strided) || cut_added_;
      } else {
        const std::uint32_t slot = slot_of_.at(input);
        cut_added_ = cut_added_ || !p_.cuts.external_copy[slot];
        p_.cuts.external_copy[slot] = true;
      }
    }
    return layout;
  }

  // The walk recurses once per fused op (kMaxFusedDepth deep): visit and visit_uncached keep small
  // locals, terms and layouts live in helpers out of line (3.5 KB a level overflowed 384 KB).
  std::int32_t visit(Node* node, std::vector<const Node*>& path) {
    if (std::optional<std::int32_t> known = memo_.find(node, path, per_row_)) return *known;
    const std::int32_t term = visit_uncached(node, path);
    if (term != kFailed) memo_.remember(node, path, per_row_, term);
    return term;
  }

  std::int32_t visit_uncached(Node* node, std::vector<const Node*>& path) {
    if (!node->is_pending()) return load_external(*node, path);
    const std::uint32_t index = node->trace_index;
    const std::int32_t region = p_.region_of[index];
    if (region != Partition::kNoRegion && region < current_) return load_earlier(*node, path);
    switch (ir::op_kind(node->op)) {
      case OpKind::leaf:
        return add_term(make_term(Term::Kind::scalar, index));
      case OpKind::view: {
        path.push_back(node);
        const std::int32_t term = visit(node->inputs[0], path);
        path.pop_back();
        return term;
      }
      case OpKind::copy:
        return visit(node->inputs[0], path);
      case OpKind::pointwise:
        return visit_op(*node, path);
      case OpKind::generator:
        return visit_generator(*node, path);
      case OpKind::reduction:
        return visit_row_reduction(*node, path);
      case OpKind::matmul:
        internal_error(*node, "a matrix product read inside a region before its call");
      case OpKind::gather:
        return visit_gather(*node, path);
      case OpKind::concat:
        return visit_concat(node, path);
      case OpKind::scan:
      case OpKind::top_k:
      case OpKind::scatter:
        internal_error(*node, "a scan, top-k or scatter read inside a region before its kernel");
    }
    internal_error(*node, "an op of no kind");
  }

  // An input of the graph, or the dense copy an earlier region made of it.
  [[gnu::noinline]] std::int32_t load_external(const Node& node,
                                               const std::vector<const Node*>& path) {
    const std::uint32_t slot = slot_of_.at(&node);
    if (p_.cuts.external_copy[slot]) return load_root_copy(slot, node.shape, path);
    std::optional<ir::Layout> layout = compose_or_cut(node.data->layout, path);
    return layout ? add_load(slot, true, *layout) : kFailed;
  }

  // A node an earlier region writes.
  [[gnu::noinline]] std::int32_t load_earlier(const Node& node,
                                              const std::vector<const Node*>& path) {
    const std::uint32_t index = node.trace_index;
    if (p_.regions[p_.region_of[index]].row && !p_.cuts.stored[index] &&
        ir::op_kind(node.op) == OpKind::reduction) {
      // A later kernel reads a row region's reduction: the region writes it too.
      p_.cuts.stored[index] = true;
      cut_added_ = true;
      return kFailed;
    }
    std::optional<ir::Layout> layout = compose_or_cut(ir::Layout::contiguous(node.shape), path);
    return layout ? add_load(index, false, *layout) : kFailed;
  }

  // A pointwise op: its operands' terms (0-d operands take no views), then its own.
  std::int32_t visit_op(const Node& node, std::vector<const Node*>& path) {
    std::array<std::int32_t, 3> operands{-1, -1, -1};
    for (std::size_t k = 0; k < node.inputs.size(); ++k) {
      const bool uniform = node.inputs[k]->shape.rank() == 0 && node.shape.rank() > 0;
      std::vector<const Node*> none;
      operands.at(k) = visit(node.inputs[k], uniform ? none : path);
      if (operands[k] == kFailed) return kFailed;
    }
    return add_op_term(Term::Kind::op, node, operands, std::nullopt);
  }

  // A generator (arange, random) at the element's own index: no views apply to its operands.
  [[gnu::noinline]] std::int32_t visit_generator(const Node& node,
                                                 const std::vector<const Node*>& path) {
    const auto layout = compose_or_cut(ir::Layout::contiguous(node.shape), path);
    if (!layout) return kFailed;
    std::array<std::int32_t, 3> operands{-1, -1, -1};
    for (std::size_t k = 0; k < node.inputs.size(); ++k) {
      std::vector<const Node*> none;
      operands.at(k) = visit(node.inputs[k], none);
      if (operands[k] == kFailed) return kFailed;
    }
    return add_op_term(Term::Kind::generator, node, operands, layout);
  }

  [[gnu::noinline]] std::int32_t add_op_term(Term::Kind kind, const Node& node,
                                             const std::array<std::int32_t, 3>& operands,
                                             const std::optional<ir::Layout>& layout) {
    Term term = make_term(kind, node.trace_index);
    if (layout) term.layout = *layout;
    term.operands = operands;
    term.n_operands = int(node.inputs.size());
    return add_term(std::move(term));
  }

  // A gather: its index as an operand over the same views, then a load of its source (written by
  // an earlier region, or an input) whose layout walks every axis but the picked one.
  [[gnu::noinline]] std::int32_t visit_gather(const Node& node, std::vector<const Node*>& path) {
    const std::uint32_t index = node.trace_index;
    if (current().row || current().reduction || current().scan || current().top_k) {
      cut_added_ = p_.cuts.add_read_back(index, CutReason::gather_in_reduction) || cut_added_;
      return kFailed;
    }
    const std::int32_t picks = visit(node.inputs[1], path);
    if (picks == kFailed) return kFailed;
    const Node& source = *node.inputs[0];
    const auto [base, views] = view_chain(source, &p_.cuts.cut);
    // Not in memory before this kernel (uncut, or written by it): computed at the picked positions.
    if (base->is_pending() && base->op != Op::Scalar &&
        (!p_.cuts.cut[base->trace_index] || p_.region_of[base->trace_index] >= current_) &&
        gather_pushes_down(source))
      return visit_pushed_gather(node, picks, *base, path);
    if (base->is_pending() &&
        (!p_.cuts.cut[base->trace_index] || p_.region_of[base->trace_index] >= current_)) {
      // A view cut to be written inline (tile's reshape of a broadcast): an earlier kernel's.
      if (p_.cuts.cut[base->trace_index] && !p_.cuts.read_back[base->trace_index]) {
        cut_added_ = p_.cuts.add_read_back(base->trace_index, CutReason::gather_source);
        return kFailed;
      }
      internal_error(node, "a gather's source is not written before the gather");
    }
    const ir::Layout stored =
        base->is_pending() ? ir::Layout::contiguous(base->shape) : base->data->layout;
    const Node* failed = nullptr;
    const std::optional<ir::Layout> layout = compose_views(stored, views, &failed);
    if (!layout) {
      // The source's views need strides its base does not have: the source is written densely.
      cut_added_ =
          p_.cuts.add_read_back(source.trace_index, CutReason::gather_source) || cut_added_;
      return kFailed;
    }
    const int axis = ir::gather_axis(node);
    ir::Layout walked = *layout;
    walked.shape = node.shape;
    walked.strides[axis] = 0;
    const std::optional<ir::Layout> over = compose_or_cut(walked, path);
    if (!over) return kFailed;
    Term term =
        make_term(Term::Kind::load, base->is_pending() ? base->trace_index : slot_of_.at(base));
    term.external = !base->is_pending();
    term.layout = *over;
    term.gather = Term::Gather{picks, layout->strides[axis], layout->shape[axis], index};
    return add_term(std::move(term));
  }

  // A gather computing its source at the picked positions (gather_pushdown.h): the source's terms
  // through the Gather as a path marker; its loads check the index, else the source is written.
  std::int32_t visit_pushed_gather(const Node& node, std::int32_t picks, const Node& base,
                                   std::vector<const Node*>& path) {
    pushed_picks_[&node] = picks;
    path.push_back(&node);
    const std::int32_t term = visit(node.inputs[0], path);
    path.pop_back();
    if (term == kFailed) return kFailed;
    const bool checked =
        std::any_of(current().terms.begin(), current().terms.end(), [&](const Term& t) {
          return t.gather && t.gather->node == node.trace_index && t.gather->index == picks;
        });
    if (checked) return term;
    cut_added_ = p_.cuts.add_read_back(base.trace_index, CutReason::gather_source) || cut_added_;
    return kFailed;
  }

  // A concatenation: a term mapping the iteration space onto its parts, and each part's terms.
  [[gnu::noinline]] std::int32_t visit_concat(Node* node, std::vector<const Node*>& path) {
    const std::uint32_t index = node->trace_index;
    const bool folds = current().row || current().reduction || current().scan || current().top_k;
    if (folds || concat_parts_ + node->inputs.size() > ir::kMaxConcatParts) {
      const CutReason why = folds ? CutReason::concat_in_reduction : CutReason::concat_per_kernel;
      cut_added_ = p_.cuts.add_read_back(index, why) || cut_added_;
      return kFailed;
    }
    concat_parts_ += node->inputs.size();  // before its parts: nested ones count after it
    const std::optional<ir::Layout> at = compose_or_cut(ir::Layout::contiguous(node->shape), path);
    if (!at) return kFailed;
    const int axis = int(node->attrs[0]);
    const std::int64_t inner = ir::Layout::contiguous(node->shape).strides[axis];
    Term::Concat concat{{}, node->shape[axis] * inner, {}};
    std::int64_t start = 0;
    // Every part is visited after one fails: one pass finds every nested cat's cut (4097: 66).
    bool failed = false;
    for (Node* input : node->inputs) {
      shifts_.push_back(shifted_part(*node, *input, start, axis));
      path.push_back(shifts_.back().get());
      const std::int32_t part = visit(input, path);
      path.pop_back();
      failed = failed || part == kFailed;
      concat.parts.push_back(part);
      start += input->shape[axis];
      concat.ends.push_back(start * inner);
    }
    // Beside another, each part repeats its loads: past the argument space it is written first
    // (32 rolls of a sum of 32 tensors needed 33 KiB).
    const bool crowded = !failed && concat_parts_ > node->inputs.size() &&
                         argument_bytes(current()) > kMaxTermArgumentBytes;
    if (crowded)
      cut_added_ = p_.cuts.add_read_back(index, CutReason::concat_per_kernel) || cut_added_;
    if (failed || crowded) return kFailed;
    Term term = make_term(Term::Kind::op, index);
    term.layout = *at;
    term.concat = std::move(concat);
    return add_term(std::move(term));
  }

  // A reduction met inside a region: earlier regions' reductions were loaded by the caller, so it
  // is this row region's, read as the row's own value (or cut to be read back across rows).
  [[gnu::noinline]] std::int32_t visit_row_reduction(const Node& node,
                                                     std::vector<const Node*>& path) {
    const std::uint32_t index = node.trace_index;
    if (!current().row || p_.region_of[index] != current_)
      internal_error(node, "a reduction read inside a region that does not fold it");
    std::optional<ir::Layout> layout = compose_or_cut(ir::Layout::contiguous(node.shape), path);
    if (!layout) return kFailed;
    if (layout->shape.rank() > 0 &&
        !is_row_broadcast(*layout, current().shape, current().row->folded_axes)) {
      cut_added_ = p_.cuts.add_read_back(index, CutReason::reduction) || cut_added_;
      return kFailed;
    }
    return reduced_term(index);
  }

  // Reads the dense copy an earlier region made of an external input.
  std::int32_t load_root_copy(std::uint32_t slot, const Shape& shape,
                              const std::vector<const Node*>& path) {
    for (std::size_t r = 0; r < std::size_t(current_); ++r) {
      const Root& root = p_.regions[r].roots[0];
      if (root.external_copy && root.node == slot) {
        std::optional<ir::Layout> layout = compose_or_cut(ir::Layout::contiguous(shape), path);
        if (!layout) return kFailed;
        Term term = make_term(Term::Kind::load, slot);
        term.external = true;
        term.from_copy = true;
        term.layout = *layout;
        term.gather = take_pushed_gather();
        return add_term(std::move(term));
      }
    }
    std::optional<ir::Layout> layout = compose_or_cut(graph_.externals[slot]->data->layout, path);
    return layout ? add_load(slot, true, *layout) : kFailed;
  }

  Partition& p_;
  const Graph& graph_;
  absl::flat_hash_map<const Node*, std::uint32_t> slot_of_;
  // A pushed-down gather's index term, by Gather node; the gather a load just composed through.
  absl::flat_hash_map<const Node*, std::int32_t> pushed_picks_;
  std::optional<PushedGather> pushed_;
  // The slices moving each concatenation's inputs to their parts: views no trace holds.
  std::vector<NodePtr> shifts_;
  absl::flat_hash_set<const Node*> written_densely_;  // in this pass
  TermMemo memo_;
  bool per_row_ = false;          // visiting a per-row root of a row region
  std::size_t concat_parts_ = 0;  // of the current region's concatenations
  std::int32_t current_ = 0;
  bool cut_added_ = false;  // the build grew the cuts (form_regions must run again)
};

}  // namespace

Partition build_terms(Partition partition) {
  partition.terms_built = TermBuilder(partition).build_all();
  return partition;
}

}  // namespace lazy::fuse
