#include "fuse/partition.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <sstream>
#include <tuple>

#include <absl/container/flat_hash_map.h>
#include <absl/hash/hash.h>

#include "fuse/split_reductions.h"

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

// How many trailing axes of its input a reduction folds when it folds exactly those; 0 when it
// folds other axes too, or none.
int trailing_folded_axes(const Node& reduction) {
  const int rank = reduction.inputs[0]->shape.rank();
  const auto mask = std::uint64_t(reduction.attrs[0]);
  const int count = std::popcount(mask);
  const std::uint64_t trailing = ((std::uint64_t(1) << count) - 1) << (rank - count);
  return count > 0 && mask == trailing ? count : 0;
}

// Elements of the first `count` axes of `shape`.
std::int64_t leading_numel(const Shape& shape, int count) {
  std::int64_t n = 1;
  for (int a = 0; a < count; ++a) n *= shape[a];
  return n;
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
        stored_(live),
        no_row_(pending.size(), false),
        external_copy_(externals.size(), false) {
    // Unfused, every consumer of a reduction is another kernel: it reads the result from memory.
    if (!options.fusion) stored_.assign(pending.size(), true);
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
      stored_[base->trace_index] = true;  // a row region's reduction is written for the view
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
      if (is_reduction && row_fusable(i)) {
        place_row_reduction(i, closed);
        continue;
      }
      bool read_back = read_back_[i] || reason_[i] == CutReason::kernel_size_limit || is_reduction;
      std::int32_t target = kNoRegion;
      if (options_.fusion && !read_back) target = row_region_computing(i, closed);
      if (target != kNoRegion) {
        result_.regions[target].roots.push_back({i, reason_[i], false, true});
        result_.region_of[i] = target;
        continue;
      }
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

  // A reduction over trailing axes of a non-empty input, each row short enough for 32-bit
  // positions, can fold in a row region.
  bool row_fusable(std::uint32_t index) const {
    const Node& node = *pending_[index];
    const Shape& space = node.inputs[0]->shape;
    const int folded = trailing_folded_axes(node);
    if (no_row_[index] || folded == 0 || space.numel() == 0) return false;
    return space.numel() / leading_numel(space, space.rank() - folded) <
           (std::int64_t(1) << 31) / 16;
  }

  // A reduction over trailing axes joins the open region over its input (a row region, or a
  // pointwise one, which becomes a row region), or starts one. Regions before it close: work
  // after it that joined them would need its result before it exists.
  void place_row_reduction(std::uint32_t index, std::vector<bool>& closed) {
    const Node& node = *pending_[index];
    const Shape& space = node.inputs[0]->shape;
    const int folded = trailing_folded_axes(node);
    // Read in a way no row of the kernel can (or unfused): a region of its own, written.
    const bool alone = read_back_[index] || !options_.fusion;
    if (alone) stored_[index] = true;
    std::int32_t target = kNoRegion;
    for (std::size_t r = 0; r < result_.regions.size() && !alone; ++r) {
      const Region& region = result_.regions[r];
      if (!closed[r] && region.shape == space && !region.reduction &&
          (!region.row || region.row->folded_axes == folded) &&
          int(region.roots.size()) < kMaxOutputsPerKernel) {
        target = std::int32_t(r);
      }
    }
    if (target == kNoRegion) {
      target = std::int32_t(result_.regions.size());
      result_.regions.push_back(region_over(space));
      closed.push_back(alone);
    }
    Region& region = result_.regions[target];
    if (!region.row) {
      const int kept = space.rank() - folded;
      const std::int64_t rows = leading_numel(space, kept);
      std::int64_t extent = 1;
      for (int a = kept; a < space.rank(); ++a) extent *= space[a];
      region.row = RowInfo{rows, extent, folded, {}, {}};
    }
    region.row->reductions.push_back(index);
    if (stored_[index]) region.roots.push_back({index, reason_[index], false, true});
    result_.region_of[index] = target;
    for (std::size_t r = 0; r < closed.size(); ++r)
      closed[r] = closed[r] || r != std::size_t(target);
  }

  // The open row region that computes `index` once per row: it has the region's kept axes (the
  // folded ones dropped or kept as 1s) and reads one of the region's per-row values.
  std::int32_t row_region_computing(std::uint32_t index, const std::vector<bool>& closed) {
    for (std::size_t r = 0; r < result_.regions.size(); ++r) {
      const Region& region = result_.regions[r];
      if (closed[r] || !region.row || int(region.roots.size()) >= kMaxOutputsPerKernel) continue;
      if (!is_per_row_shape(region, pending_[index]->shape)) continue;
      absl::flat_hash_map<std::uint32_t, bool> seen;
      if (reads_per_row_value(index, std::int32_t(r), seen)) return std::int32_t(r);
    }
    return kNoRegion;
  }

  static bool is_per_row_shape(const Region& region, const Shape& shape) {
    const int kept = region.shape.rank() - region.row->folded_axes;
    if (shape.rank() != kept && shape.rank() != region.shape.rank()) return false;
    for (int a = 0; a < shape.rank(); ++a) {
      if (shape[a] != (a < kept ? region.shape[a] : 1)) return false;
    }
    return shape != region.shape;
  }

  // Whether inlined work from `index` reaches a reduction or per-row root of region r.
  bool reads_per_row_value(std::uint32_t index, std::int32_t r,
                           absl::flat_hash_map<std::uint32_t, bool>& seen) {
    for (const NodePtr& input : pending_[index]->inputs) {
      if (!input->is_pending()) continue;
      const std::uint32_t i = input->trace_index;
      if (!seen.try_emplace(i, true).second) continue;
      if (cut_[i]) {
        if (result_.region_of[i] == r) return true;
        continue;
      }
      if (reads_per_row_value(i, r, seen)) return true;
    }
    return false;
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
      per_row_ = false;  // a build that failed part-way may have left it set
      Region& region = result_.regions[r];
      if (region.row) {
        if (!build_row_terms(region)) return false;
        continue;
      }
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

  // A row region's terms: each reduction's folded value over the iteration space, then its
  // roots, per element or per row. Every access must walk rows and the folded extent with one
  // stride each; where one does not, its reductions leave row fusion (found once, cuts only grow).
  bool build_row_terms(Region& region) {
    RowInfo& row = *region.row;
    row.reduction_terms.clear();
    std::vector<const Node*> path;
    per_row_ = false;
    for (std::uint32_t reduction : row.reductions) {
      std::int32_t term = visit(pending_[reduction]->inputs[0], path);
      if (term == kFailed) return false;
      row.reduction_terms.push_back(term);
    }
    for (const Root& root : region.roots) {
      per_row_ = root.per_row;
      const Node& node = *pending_[root.node];
      std::int32_t term = ir::op_kind(node.op) == OpKind::reduction
                              ? reduced_term(root.node)
                              : visit(pending_[root.node], path);
      if (term == kFailed) return false;
      region.root_terms.push_back(term);
    }
    per_row_ = false;
    const Shape rows_by_extent{row.rows, row.extent};
    for (const Term& term : region.terms) {
      if (term.kind != Term::Kind::load && term.kind != Term::Kind::generator) continue;
      if (term.layout.shape.rank() == 0 || rows_by_extent.numel() == 0) continue;
      std::optional<ir::Layout> walk = ir::reshape_layout(term.layout, rows_by_extent);
      // A load whose rows are neighbours in memory (sum over axis 1 of a transpose) reads
      // coalesced in the column kernel, not here.
      const bool column_major =
          walk && row.rows > 1 && row.extent > 1 && walk->strides[0] == 1 && walk->strides[1] > 1;
      if (!walk || (column_major && term.kind == Term::Kind::load)) {
        for (std::uint32_t reduction : row.reductions) no_row_[reduction] = true;
        progressed_ = true;
        return false;
      }
    }
    return true;
  }

  std::int32_t reduced_term(std::uint32_t reduction) {
    const std::vector<Term>& terms = result_.regions[current_].terms;
    for (std::size_t t = 0; t < terms.size(); ++t)
      if (terms[t].kind == Term::Kind::reduced && terms[t].source == reduction)
        return std::int32_t(t);
    return add_term(make_term(Term::Kind::reduced, reduction));
  }

  // A layout over a per-row root's shape (the kept axes, the folded ones dropped or kept as 1s)
  // as one over the row region's iteration space: the same element for the whole row.
  ir::Layout per_row_layout(const ir::Layout& layout) const {
    const Region& region = result_.regions[current_];
    const int kept = region.shape.rank() - region.row->folded_axes;
    ir::Layout out;
    out.shape = region.shape;
    out.offset = layout.offset;
    for (int a = 0; a < kept; ++a) out.strides[a] = layout.strides[a];
    return out;
  }

  // Whether `layout` (over a row region's iteration space) reads a reduction's result as the
  // row's own value: stride 0 along the folded axes, the row's index along the kept ones.
  bool is_row_broadcast(const ir::Layout& layout) const {
    const Region& region = result_.regions[current_];
    const int kept = region.shape.rank() - region.row->folded_axes;
    Shape kept_shape;
    for (int a = 0; a < kept; ++a) kept_shape.push_back(region.shape[a]);
    const ir::Layout rows = ir::Layout::contiguous(kept_shape);
    if (layout.offset != 0) return false;
    for (int a = 0; a < region.shape.rank(); ++a) {
      if (region.shape[a] == 1) continue;
      if (layout.strides[a] != (a < kept ? rows.strides[a] : 0)) return false;
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
    if (layout && per_row_ && layout->shape.rank() > 0) layout = per_row_layout(*layout);
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
    auto key = std::make_tuple(node.get(), path, per_row_);
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
    if (region != kNoRegion && region < current_ && !stored_[index] &&
        result_.regions[region].row && ir::op_kind(node->op) == OpKind::reduction) {
      // A later kernel reads a row region's reduction: the region writes it too.
      stored_[index] = true;
      progressed_ = true;
      return kFailed;
    }
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
      case OpKind::reduction: {
        // Earlier regions' reductions were loaded above; what remains is one of this row
        // region's (a reduction closes the regions before it).
        const Region& current = result_.regions[current_];
        if (!current.row || region != current_) std::abort();
        std::optional<ir::Layout> layout =
            compose_or_cut(ir::Layout::contiguous(node->shape), path);
        if (!layout) return kFailed;
        if (layout->shape.rank() > 0 && !is_row_broadcast(*layout)) {
          cut_for_read_back(index, CutReason::reduction);
          return kFailed;
        }
        return reduced_term(index);
      }
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
  std::vector<bool> stored_;     // a row region's reduction that is written to memory
  std::vector<bool> no_row_;     // a reduction whose accesses a row region cannot express
  bool progressed_ = false;
  std::vector<bool> external_copy_;
  std::vector<std::uint32_t> live_views_;
  std::vector<std::uint32_t> live_scalars_;
  absl::flat_hash_map<const Node*, std::uint32_t> slot_of_;
  absl::flat_hash_map<std::tuple<const Node*, std::vector<const Node*>, bool>, std::int32_t> memo_;
  bool per_row_ = false;  // visiting a per-row root of a row region
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
  Graph graph = split_reductions(recorded_graph(pending, live));
  Partition result = Partitioner(graph.nodes, graph.live, externals, options).run();
  result.graph = std::move(graph);
  return result;
}

std::string Partition::describe() const {
  std::span<const ir::NodePtr> pending = graph.nodes;
  std::ostringstream out;
  out << graph.describe_rewrites();
  for (std::size_t r = 0; r < regions.size(); ++r) {
    const Region& region = regions[r];
    out << "region " << r << ": iteration space " << region.shape.to_string() << ", "
        << region.roots.size() << " output(s), " << region.terms.size() << " terms\n";
    if (region.row) {
      out << "  folds rows of " << region.row->extent << " element(s) ("
          << region.row->reductions.size() << " reduction(s) in one pass):";
      for (std::uint32_t reduction : region.row->reductions)
        out << " %" << reduction << " " << ir::op_name(pending[reduction]->op);
      out << "\n";
    }
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
