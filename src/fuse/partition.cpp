#include "fuse/partition.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include <absl/container/flat_hash_map.h>
#include <absl/hash/hash.h>

namespace lazy::fuse {

namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;
using ir::OpKind;

constexpr std::int32_t kNoRegion = -1;
constexpr std::int32_t kFailed = -1;

Region region_over(const Shape& shape) {
  Region region;
  region.shape = shape;
  return region;
}

Term make_term(Term::Kind kind, std::uint32_t source) {
  Term term;
  term.kind = kind;
  term.source = source;
  return term;
}

bool is_generator(Op op) {
  return op == Op::Arange || op == Op::RandUniform || op == Op::RandNormal;
}

// Builds the partition: cuts, regions, then each region's terms. A reshape found inexpressible
// while building terms adds a cut and starts the regions over; cuts only grow, so this ends.
class Partitioner {
 public:
  Partitioner(std::span<const NodePtr> pending, const std::vector<bool>& live,
              std::span<const NodePtr> externals, PartitionOptions options)
      : pending_(pending),
        live_(live),
        externals_(externals),
        options_(options),
        cut_(pending.size(), false),
        reason_(pending.size(), CutReason::live_output),
        read_back_(pending.size(), false),
        external_copy_(externals.size(), false) {
    for (std::size_t slot = 0; slot < externals.size(); ++slot)
      slot_of_[externals[slot].get()] = std::uint32_t(slot);
  }

  Partition run() {
    mark_needed();
    cut_initial();
    cut_long_chains();
    while (true) {
      result_ = Partition{};
      result_.region_of.assign(pending_.size(), kNoRegion);
      result_.live_views = live_views_;
      result_.live_scalars = live_scalars_;
      form_regions();
      progressed_ = false;
      if (build_all_terms()) return std::move(result_);
      // Each failed pass must have cut something new (cuts only grow, so this ends).
      if (!progressed_) std::abort();
    }
  }

 private:
  void cut(std::uint32_t index, CutReason reason) {
    if (cut_[index]) return;
    cut_[index] = true;
    reason_[index] = reason;
  }

  // A cut whose consumers must read it back from memory (a reshape strides cannot express reads
  // it): its own region, ahead of its consumers', even if a handle already made it a root.
  void cut_for_read_back(std::uint32_t index, CutReason reason) {
    if (!cut_[index]) {
      cut(index, reason);
      progressed_ = true;
    }
    if (!read_back_[index]) {
      read_back_[index] = true;
      progressed_ = true;
    }
  }

  void mark_needed() {
    needed_ = live_;
    for (std::size_t i = pending_.size(); i-- > 0;) {
      if (!needed_[i]) continue;
      for (const NodePtr& input : pending_[i]->inputs)
        if (input->is_pending()) needed_[input->trace_index] = true;
    }
  }

  // The nodes a handle holds must be written; a held view needs its base written instead.
  void cut_initial() {
    for (std::uint32_t i = 0; i < pending_.size(); ++i) {
      const Node& node = *pending_[i];
      if (!needed_[i]) continue;
      OpKind kind = ir::op_kind(node.op);
      if (!options_.fusion && (kind == OpKind::pointwise || kind == OpKind::copy)) {
        cut(i, live_[i] ? CutReason::live_output : CutReason::fusion_disabled);
      }
      if (kind == OpKind::reduction)
        cut(i, live_[i] ? CutReason::live_output : CutReason::reduction);
      if (!live_[i]) continue;
      if (node.op == Op::Scalar) {
        live_scalars_.push_back(i);
      } else if (kind == OpKind::view) {
        cut_for_live_view(i);
      } else {
        cut(i, CutReason::live_output);
      }
    }
  }

  // Cuts a node whose chain of inlined ops, back to the nearest written value or leaf, would be
  // longer than kMaxFusedDepth.
  void cut_long_chains() {
    std::vector<int> depth(pending_.size(), 0);
    for (std::uint32_t i = 0; i < pending_.size(); ++i) {
      if (!needed_[i] || pending_[i]->inputs.empty()) continue;
      int deepest = 0;
      for (const NodePtr& input : pending_[i]->inputs)
        if (input->is_pending()) deepest = std::max(deepest, depth[input->trace_index]);
      depth[i] = deepest + 1;
      if (depth[i] > kMaxFusedDepth) cut_for_read_back(i, CutReason::kernel_size_limit);
      if (cut_[i]) depth[i] = 0;
    }
  }

  void cut_for_live_view(std::uint32_t index) {
    std::vector<const Node*> views;
    const Node* base = pending_[index].get();
    while (base->is_pending() && ir::op_kind(base->op) == OpKind::view) {
      views.push_back(base);
      base = base->inputs[0].get();
    }
    ir::Layout base_layout =
        base->is_pending() ? ir::Layout::contiguous(base->shape) : base->data->layout;
    const Node* failed = nullptr;
    if (!compose_views(base_layout, views, &failed)) {
      cut(index, CutReason::live_output);  // written densely itself
      return;
    }
    live_views_.push_back(index);
    if (!base->is_pending()) return;
    if (base->op == Op::Scalar) {
      if (std::find(live_scalars_.begin(), live_scalars_.end(), base->trace_index) ==
          live_scalars_.end()) {
        live_scalars_.push_back(base->trace_index);
      }
    } else {
      cut(base->trace_index, CutReason::base_of_live_view);
    }
  }

  // Fused: one region per iteration space, in order of first root (external copies first).
  // Unfused: one region per root.
  void form_regions() {
    for (std::uint32_t slot = 0; slot < externals_.size(); ++slot) {
      if (!external_copy_[slot]) continue;
      Region region;
      region.shape = externals_[slot]->shape;
      region.roots.push_back({slot, CutReason::reshape_not_strided, true});
      result_.regions.push_back(std::move(region));
    }
    // A root cut so that its consumers read it back from memory gets a region of its own, which
    // nothing joins: in its consumers' region it would be recomputed inline, not read. Regions
    // before it close too, so that its consumers land after it.
    std::vector<bool> closed(result_.regions.size(), true);
    for (std::uint32_t i = 0; i < pending_.size(); ++i) {
      if (!cut_[i]) continue;
      const Shape& shape = pending_[i]->shape;
      const bool is_reduction = ir::op_kind(pending_[i]->op) == OpKind::reduction;
      bool read_back = read_back_[i] || reason_[i] == CutReason::kernel_size_limit || is_reduction;
      std::int32_t target = kNoRegion;
      if (options_.fusion && !read_back) {
        for (std::size_t r = 0; r < result_.regions.size(); ++r) {
          const Region& region = result_.regions[r];
          if (!closed[r] && region.shape == shape &&
              int(region.roots.size()) < kMaxOutputsPerKernel) {
            target = std::int32_t(r);
          }
        }
      }
      if (target == kNoRegion) {
        if (read_back) closed.assign(closed.size(), true);
        target = std::int32_t(result_.regions.size());
        result_.regions.push_back(is_reduction ? reduction_region(i) : region_over(shape));
        closed.push_back(read_back);
      }
      result_.regions[target].roots.push_back({i, reason_[i]});
      result_.region_of[i] = target;
    }
  }

  // A reduction's region iterates over its input with the folded axes last.
  Region reduction_region(std::uint32_t index) {
    const Node& node = *pending_[index];
    const Shape& in = node.inputs[0]->shape;
    const auto mask = std::uint64_t(node.attrs[0]);
    ReductionInfo info{index, node.shape.numel(), 1, nullptr};
    ir::Attrs order;
    Shape permuted;
    for (int pass = 0; pass < 2; ++pass) {
      for (int a = 0; a < in.rank(); ++a) {
        bool folded = mask & (std::uint64_t(1) << a);
        if (folded != (pass == 1)) continue;
        order.push(a);
        permuted.push_back(in[a]);
        if (folded) info.extent *= in[a];
      }
    }
    bool identity = true;
    for (int a = 0; a < in.rank(); ++a) identity = identity && order[a] == a;
    if (!identity) {
      info.permute = std::make_shared<Node>();
      info.permute->op = Op::Permute;
      info.permute->dtype = node.inputs[0]->dtype;
      info.permute->shape = permuted;
      info.permute->attrs = order;
    }
    Region region = region_over(permuted);
    region.reduction = info;
    return region;
  }

  bool build_all_terms() {
    for (std::size_t r = 0; r < result_.regions.size(); ++r) {
      current_ = std::int32_t(r);
      memo_.clear();
      Region& region = result_.regions[r];
      for (const Root& root : region.roots) {
        std::int32_t term;
        if (root.external_copy) {
          term = add_load(root.node, true, externals_[root.node]->data->layout);
        } else if (region.reduction) {
          // The reduced expression, read through the permutation of the region.
          std::vector<const Node*> path;
          if (region.reduction->permute) path.push_back(region.reduction->permute.get());
          term = visit(pending_[root.node]->inputs[0], path);
        } else {
          std::vector<const Node*> path;
          term = visit(pending_[root.node], path);
        }
        if (term == kFailed) return false;
        region.root_terms.push_back(term);
      }
    }
    return true;
  }

  std::int32_t add_term(Term term) {
    Region& region = result_.regions[current_];
    region.terms.push_back(std::move(term));
    return std::int32_t(region.terms.size() - 1);
  }

  std::int32_t add_load(std::uint32_t source, bool external, const ir::Layout& layout) {
    Term term = make_term(Term::Kind::load, source);
    term.external = external;
    term.layout = layout;
    return add_term(term);
  }

  // Layout of `views` over `base`; on failure records the cut that will make it expressible.
  std::optional<ir::Layout> compose_or_cut(const ir::Layout& base,
                                           const std::vector<const Node*>& views) {
    const Node* failed = nullptr;
    std::optional<ir::Layout> layout = compose_views(base, views, &failed);
    if (!layout) {
      const NodePtr& input = failed->inputs[0];
      if (input->is_pending()) {
        cut_for_read_back(input->trace_index, CutReason::reshape_not_strided);
      } else {
        progressed_ = progressed_ || !external_copy_[slot_of_.at(input.get())];
        external_copy_[slot_of_.at(input.get())] = true;
      }
    }
    return layout;
  }

  std::int32_t visit(const NodePtr& node, std::vector<const Node*>& path) {
    auto key = std::make_pair(node.get(), path);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    std::int32_t term = visit_uncached(node, path);
    if (term != kFailed) memo_.emplace(std::move(key), term);
    return term;
  }

  std::int32_t visit_uncached(const NodePtr& node, std::vector<const Node*>& path) {
    if (!node->is_pending()) {
      std::uint32_t slot = slot_of_.at(node.get());
      if (external_copy_[slot]) return load_root_copy(slot, node->shape, path);
      std::optional<ir::Layout> layout = compose_or_cut(node->data->layout, path);
      return layout ? add_load(slot, true, *layout) : kFailed;
    }
    std::uint32_t index = node->trace_index;
    std::int32_t region = result_.region_of[index];
    if (region != kNoRegion && region < current_) {
      std::optional<ir::Layout> layout = compose_or_cut(ir::Layout::contiguous(node->shape), path);
      return layout ? add_load(index, false, *layout) : kFailed;
    }
    switch (ir::op_kind(node->op)) {
      case OpKind::leaf:
        return add_term(make_term(Term::Kind::scalar, index));
      case OpKind::view: {
        path.push_back(node.get());
        std::int32_t term = visit(node->inputs[0], path);
        path.pop_back();
        return term;
      }
      case OpKind::copy:
        return visit(node->inputs[0], path);
      case OpKind::pointwise:
        break;
      case OpKind::reduction:
        // Always a root of an earlier region (it is cut, and closes the regions before it).
        std::abort();
    }
    Term term = make_term(is_generator(node->op) ? Term::Kind::generator : Term::Kind::op, index);
    if (term.kind == Term::Kind::generator) {
      std::optional<ir::Layout> layout = compose_or_cut(ir::Layout::contiguous(node->shape), path);
      if (!layout) return kFailed;
      term.layout = *layout;
    }
    for (const NodePtr& input : node->inputs) {
      // 0-d inputs (scalars) are the same for every element: no views apply to them.
      std::vector<const Node*> none;
      bool uniform = input->shape.rank() == 0 && node->shape.rank() > 0;
      std::int32_t operand =
          visit(input, (uniform || term.kind == Term::Kind::generator) ? none : path);
      if (operand == kFailed) return kFailed;
      term.operands[term.n_operands++] = operand;
    }
    return add_term(term);
  }

  // Reads the dense copy an earlier region made of an external input.
  std::int32_t load_root_copy(std::uint32_t slot, const Shape& shape,
                              const std::vector<const Node*>& path) {
    for (std::size_t r = 0; r < std::size_t(current_); ++r) {
      const Root& root = result_.regions[r].roots[0];
      if (root.external_copy && root.node == slot) {
        std::optional<ir::Layout> layout = compose_or_cut(ir::Layout::contiguous(shape), path);
        if (!layout) return kFailed;
        Term term = make_term(Term::Kind::load, slot);
        term.external = true;
        term.from_copy = true;
        term.layout = *layout;
        return add_term(term);
      }
    }
    std::optional<ir::Layout> layout = compose_or_cut(externals_[slot]->data->layout, path);
    return layout ? add_load(slot, true, *layout) : kFailed;
  }

  std::span<const NodePtr> pending_;
  const std::vector<bool>& live_;
  std::span<const NodePtr> externals_;
  PartitionOptions options_;
  std::vector<bool> needed_;
  std::vector<bool> cut_;
  std::vector<CutReason> reason_;
  std::vector<bool> read_back_;  // cut so that consumers read it back from memory
  bool progressed_ = false;
  std::vector<bool> external_copy_;
  std::vector<std::uint32_t> live_views_;
  std::vector<std::uint32_t> live_scalars_;
  absl::flat_hash_map<const Node*, std::uint32_t> slot_of_;
  absl::flat_hash_map<std::pair<const Node*, std::vector<const Node*>>, std::int32_t> memo_;
  Partition result_;
  std::int32_t current_ = 0;
};

}  // namespace

std::string_view cut_reason_name(CutReason reason) {
  switch (reason) {
    case CutReason::live_output:
      return "live_output";
    case CutReason::base_of_live_view:
      return "base_of_live_view";
    case CutReason::reshape_not_strided:
      return "reshape_not_strided";
    case CutReason::fusion_disabled:
      return "fusion_disabled";
    case CutReason::kernel_size_limit:
      return "kernel_size_limit";
    case CutReason::reduction:
      return "reduction";
  }
  return "?";
}

std::optional<ir::Layout> compose_views(const ir::Layout& base,
                                        std::span<const ir::Node* const> views,
                                        const ir::Node** failed_view) {
  ir::Layout layout = base;
  for (std::size_t i = views.size(); i-- > 0;) {
    const Node& view = *views[i];
    switch (view.op) {
      case Op::Reshape: {
        std::optional<ir::Layout> reshaped = ir::reshape_layout(layout, view.shape);
        if (!reshaped) {
          *failed_view = &view;
          return std::nullopt;
        }
        layout = *reshaped;
        break;
      }
      case Op::Permute:
        layout = ir::permute_layout(layout, {view.attrs.ints.data(), view.attrs.count});
        break;
      case Op::Expand:
        layout = ir::expand_layout(layout, view.shape);
        break;
      case Op::Slice: {
        int axis = int(view.attrs[0]);
        layout = ir::slice_layout(layout, axis, view.attrs[1], view.attrs[2], view.shape[axis]);
        break;
      }
      default:
        break;
    }
  }
  return layout;
}

Partition partition(std::span<const ir::NodePtr> pending, const std::vector<bool>& live,
                    std::span<const ir::NodePtr> externals, PartitionOptions options) {
  return Partitioner(pending, live, externals, options).run();
}

std::string Partition::describe(std::span<const ir::NodePtr> pending) const {
  std::ostringstream out;
  for (std::size_t r = 0; r < regions.size(); ++r) {
    const Region& region = regions[r];
    out << "region " << r << ": iteration space " << region.shape.to_string() << ", "
        << region.roots.size() << " output(s), " << region.terms.size() << " terms\n";
    for (const Root& root : region.roots) {
      if (root.external_copy) {
        out << "  writes a dense copy of input " << root.node << " ("
            << cut_reason_name(root.reason) << ")\n";
        continue;
      }
      const Node& node = *pending[root.node];
      out << "  writes %" << root.node << " " << ir::op_name(node.op) << " "
          << dtype_name(node.dtype) << node.shape.to_string() << " ("
          << cut_reason_name(root.reason) << ") from " << node.loc.file_name() << ":"
          << node.loc.line() << "\n";
    }
  }
  for (std::uint32_t v : live_views) {
    out << "view %" << v << " " << ir::op_name(pending[v]->op) << " shares its base's memory\n";
  }
  return out.str();
}

}  // namespace lazy::fuse
