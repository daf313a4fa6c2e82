#include "fuse/form_regions.h"

#include <bit>

#include <absl/container/flat_hash_map.h>
#include <absl/hash/hash.h>
#include <absl/types/span.h>

namespace lazy::fuse {

namespace {

using ir::Node;
using ir::NodePtr;
using ir::Op;
using ir::OpKind;

// Positions in a row are 32-bit: a row region folds rows shorter than this.
constexpr std::int64_t kMaxRowExtent = (std::int64_t(1) << 31) / 16;

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

Region region_over(const Shape& shape) {
  Region region;
  region.shape = shape;
  return region;
}

// A reduction's region iterates over its input with the folded axes moved last.
Region reduction_region(const Node& node, std::uint32_t index) {
  const Shape& in = node.inputs[0]->shape;
  const auto mask = std::uint64_t(node.attrs[0]);
  ReductionInfo info{index, node.shape.numel(), 1, nullptr};
  ir::Attrs order;
  Shape permuted;
  for (int pass = 0; pass < 2; ++pass) {
    for (int a = 0; a < in.rank(); ++a) {
      const bool folded = mask & (std::uint64_t(1) << a);
      if (folded != (pass == 1)) continue;
      order.push(a);
      permuted.push_back(in[a]);
      if (folded) info.extent *= in[a];
    }
  }
  bool identity = true;
  for (int a = 0; a < in.rank(); ++a) identity = identity && order[a] == a;
  if (!identity) {
    info.permute = ir::make_node(Op::Permute, node.inputs[0]->dtype, permuted, node.loc);
    info.permute->attrs = order;
  }
  Region region = region_over(permuted);
  region.reduction = info;
  return region;
}

// Whether `shape` is one value per row of a row region: its kept axes, the folded ones dropped
// or kept as 1s.
bool is_per_row_shape(const Region& region, const Shape& shape) {
  const int kept = region.shape.rank() - region.row->folded_axes;
  if (shape.rank() != kept && shape.rank() != region.shape.rank()) return false;
  for (int a = 0; a < shape.rank(); ++a) {
    if (shape[a] != (a < kept ? region.shape[a] : 1)) return false;
  }
  return shape != region.shape;
}

struct ShapeHash {
  std::size_t operator()(const Shape& shape) const {
    return absl::HashOf(absl::MakeConstSpan(shape.dims()));
  }
};

// Regions over a shape: the last one made, and those that were open and neither a scan nor a
// top-k when made, in order (some since closed or full).
struct RegionsOver {
  std::int32_t last = Partition::kNoRegion;
  std::vector<std::int32_t> open;
};

// Placing a node looks only at regions still open, and finds those over a shape through a table:
// scanning every region made so far made a sync quadratic in its kernels (3.2x10^4 reductions
// took 13 s to partition).
class RegionForming {
 public:
  RegionForming(Partition& p, PartitionOptions options) : p_(p), options_(options) {}

  void run() {
    const Graph& graph = p_.graph;
    for (std::uint32_t slot = 0; slot < p_.cuts.external_copy.size(); ++slot) {
      if (!p_.cuts.external_copy[slot]) continue;
      Region region = region_over(graph.externals[slot]->shape);
      region.roots.push_back({slot, CutReason::reshape_not_strided, true});
      // A dense copy is read back by its consumers: nothing joins it.
      region.closed = RegionClosing{Refusal::written_alone, -1};
      add_region(std::move(region), true, Refusal::written_alone, 0);  // keeps its closing
    }
    for (std::uint32_t i = 0; i < graph.size(); ++i) {
      if (p_.cuts.cut[i]) place(i);
    }
  }

 private:
  // Closes region r, remembering the first reason.
  void close(std::size_t r, Refusal reason, std::uint32_t by) {
    closed_[r] = true;
    if (!p_.regions[r].closed) p_.regions[r].closed = RegionClosing{reason, std::int32_t(by)};
  }

  std::int32_t add_region(Region region, bool alone, Refusal why_alone, std::uint32_t by) {
    const auto r = std::int32_t(p_.regions.size());
    p_.regions.push_back(std::move(region));
    closed_.push_back(false);
    const Region& added = p_.regions.back();
    RegionsOver& over = over_shape_[added.shape];
    over.last = r;
    if (alone) {
      close(r, why_alone, by);
      return r;
    }
    open_.push_back(r);
    if (added.scan || added.top_k) {
      open_row_ops_.push_back(r);
    } else {
      over.open.push_back(r);
    }
    return r;
  }

  // Closes every open region but `kept`.
  void close_open(Refusal reason, std::uint32_t by, std::int32_t kept = Partition::kNoRegion) {
    for (const std::int32_t r : open_)
      if (r != kept) close(r, reason, by);
    std::erase_if(open_, [&](std::int32_t r) { return closed_[r]; });
  }

  bool full(std::int32_t r) const {
    return int(p_.regions[r].roots.size()) >= kMaxOutputsPerKernel;
  }

  // A root cut so that its consumers read it back from memory gets a region of its own, which
  // nothing joins: in its consumers' region it would be recomputed inline, not read. Regions
  // before it close too, so that its consumers land after it.
  void place(std::uint32_t i) {
    const Node& node = *p_.graph.nodes[i];
    const Cuts& cuts = p_.cuts;
    const bool is_reduction = ir::op_kind(node.op) == OpKind::reduction;
    if (is_reduction) {
      const std::optional<Refusal> refused = row_refusal(i);
      if (!refused) return place_row_reduction(i);
      p_.refusals.push_back({*refused, i});
    }
    if (node.op == Op::MatMul) {
      Region region = region_over(node.shape);
      region.matmul = MatmulRegion{i, {}, {}};
      return place_alone(i, std::move(region), Refusal::before_matmul, Refusal::library_call);
    }
    if (ir::op_kind(node.op) == OpKind::scatter) {
      Region region = region_over(node.shape);
      region.scatter = ScatterRegion{i, {}};
      return place_alone(i, std::move(region), Refusal::before_scatter, Refusal::scatter_kernel);
    }
    if (ir::op_kind(node.op) == OpKind::scan || ir::op_kind(node.op) == OpKind::top_k)
      return place_row_op(i);
    const bool read_back =
        cuts.read_back[i] || cuts.reason[i] == CutReason::kernel_size_limit || is_reduction;
    std::int32_t target = Partition::kNoRegion;
    if (options_.fusion && !read_back) target = row_region_computing(i);
    if (target != Partition::kNoRegion) {
      p_.regions[target].roots.push_back({i, cuts.reason[i], false, true});
      p_.region_of[i] = target;
      return;
    }
    if (options_.fusion && !read_back) target = open_region_over(node.shape, i);
    if (target == Partition::kNoRegion) {
      if (read_back)
        close_open(is_reduction ? Refusal::before_reduction : Refusal::before_read_back, i);
      target =
          add_region(is_reduction ? reduction_region(node, i) : region_over(node.shape), read_back,
                     is_reduction ? Refusal::reduction_kernel : Refusal::written_alone, i);
    }
    p_.regions[target].roots.push_back({i, cuts.reason[i]});
    p_.region_of[i] = target;
  }

  // A matrix product (one cuBLASLt call) or a scatter (a kernel of its own) is a region alone,
  // closed to other work (`alone`). Regions before it close (`before`): work reading its result
  // must come after it.
  void place_alone(std::uint32_t i, Region region, Refusal before, Refusal alone) {
    close_open(before, i);
    const std::int32_t target = add_region(std::move(region), true, alone, i);
    p_.regions[target].roots.push_back({i, p_.cuts.reason[i]});
    p_.region_of[i] = target;
  }

  // Whether two scans or top-ks are one kernel: the same fold (or k) of the same input, as
  // cummax's values and indices, or top-k's.
  static bool same_row_op(const Node& a, const Node& b) {
    if (a.inputs[0] != b.inputs[0] || a.compute_dtype != b.compute_dtype ||
        ir::op_kind(a.op) != ir::op_kind(b.op))
      return false;
    if (ir::op_kind(a.op) == OpKind::top_k)
      return a.attrs[0] == b.attrs[0] && a.attrs[1] == b.attrs[1];
    return ir::scan_info(a.op).device_fold == ir::scan_info(b.op).device_fold;
  }

  // A scan or top-k joins the open region of the same one (cummax's values and indices are one
  // kernel), or starts one that nothing else joins. Regions before it close: work reading it
  // must come after it.
  void place_row_op(std::uint32_t i) {
    const Node& node = *p_.graph.nodes[i];
    const bool scan = ir::op_kind(node.op) == OpKind::scan;
    std::int32_t target = Partition::kNoRegion;
    std::erase_if(open_row_ops_, [&](std::int32_t r) { return closed_[r]; });
    for (const std::int32_t r : open_row_ops_) {
      if (options_.fusion && same_row_op(*p_.graph.nodes[p_.regions[r].roots[0].node], node) &&
          !full(r))
        target = r;
    }
    if (target == Partition::kNoRegion) {
      close_open(scan ? Refusal::before_scan : Refusal::before_top_k, i);
      const Shape& space = node.inputs[0]->shape;
      const std::int64_t extent = space[space.rank() - 1];
      const std::int64_t rows = extent == 0 ? 0 : space.numel() / extent;
      Region region = region_over(space);
      if (scan) {
        region.scan = ScanInfo{rows, extent};
      } else {
        region.top_k =
            TopKInfo{rows, extent, node.attrs[0], node.attrs[1] != 0, node.inputs[0]->dtype};
      }
      // Closed to all but the same op's other output, which the loop above finds.
      const Refusal kernel = scan ? Refusal::scan_kernel : Refusal::top_k_kernel;
      region.closed = RegionClosing{kernel, std::int32_t(i)};
      target = add_region(std::move(region), false, kernel, i);
    }
    p_.regions[target].roots.push_back({i, p_.cuts.reason[i]});
    p_.region_of[i] = target;
  }

  // The last open region over `shape` with room for one more output; where an earlier region
  // has the shape but takes no more, node i's refusal says why.
  std::int32_t open_region_over(const Shape& shape, std::uint32_t i) {
    const auto it = over_shape_.find(shape);
    if (it == over_shape_.end()) return Partition::kNoRegion;
    const std::int32_t target = last_open_over(it->second, [](std::int32_t) { return true; });
    if (target == Partition::kNoRegion) {
      // Every region over the shape is closed or full: the last one's state says why.
      const std::int32_t last = it->second.last;
      const Region& region = p_.regions[last];
      const bool closed = closed_[last] || region.scan || region.top_k;
      p_.refusals.push_back({closed ? Refusal::region_closed : Refusal::outputs_limit, i});
    }
    return target;
  }

  // The last region of `over` that is open, has room and `fits`. Regions that are closed or full
  // stay so: those at the end of the list leave it.
  template <class Fits>
  std::int32_t last_open_over(RegionsOver& over, Fits fits) {
    const auto stale = [&](std::int32_t r) { return closed_[r] || full(r); };
    while (!over.open.empty() && stale(over.open.back())) over.open.pop_back();
    if (over.open.empty() || fits(over.open.back()))
      return over.open.empty() ? Partition::kNoRegion : over.open.back();
    // The last does not fit (a row region folding other axes): the others, stale ones dropped
    // first, so that reductions alternating between two folds stay linear.
    std::erase_if(over.open, stale);
    for (auto r = over.open.rbegin(); r != over.open.rend(); ++r)
      if (fits(*r)) return *r;
    return Partition::kNoRegion;
  }

  // Why reduction i does not fold in a row region, if it does not. A reduction over trailing
  // axes of a non-empty input, each row short enough for 32-bit positions, can.
  std::optional<Refusal> row_refusal(std::uint32_t i) const {
    if (p_.cuts.no_row[i]) return p_.cuts.no_row[i];
    const Node& node = *p_.graph.nodes[i];
    const Shape& space = node.inputs[0]->shape;
    const int folded = trailing_folded_axes(node);
    if (folded == 0) return Refusal::not_trailing_axes;
    if (space.numel() == 0) return Refusal::empty_input;
    if (space.numel() / leading_numel(space, space.rank() - folded) >= kMaxRowExtent)
      return Refusal::rows_too_long;
    return std::nullopt;
  }

  // A reduction over trailing axes joins the open region over its input (a row region, or a
  // pointwise one, which becomes a row region), or starts one. Regions before it close: work
  // after it that joined them would need its result before it exists.
  void place_row_reduction(std::uint32_t index) {
    const Node& node = *p_.graph.nodes[index];
    const Shape& space = node.inputs[0]->shape;
    const int folded = trailing_folded_axes(node);
    Cuts& cuts = p_.cuts;
    // Read in a way no row of the kernel can (or unfused): a region of its own, written.
    const bool alone = cuts.read_back[index] || !options_.fusion;
    if (alone) cuts.stored[index] = true;
    std::int32_t target = Partition::kNoRegion;
    if (const auto it = over_shape_.find(space); it != over_shape_.end() && !alone) {
      target = last_open_over(it->second, [&](std::int32_t r) {
        const Region& region = p_.regions[r];
        return !region.reduction && (!region.row || region.row->folded_axes == folded);
      });
    }
    if (target == Partition::kNoRegion)
      target = add_region(region_over(space), alone, Refusal::written_alone, index);
    Region& region = p_.regions[target];
    if (!region.row) {
      const int kept = space.rank() - folded;
      const std::int64_t rows = leading_numel(space, kept);
      std::int64_t extent = 1;
      for (int a = kept; a < space.rank(); ++a) extent *= space[a];
      region.row = RowInfo{rows, extent, folded, {}, {}};
      if (!closed_[target]) open_rows_.push_back(target);
    }
    region.row->reductions.push_back(index);
    if (cuts.stored[index]) region.roots.push_back({index, cuts.reason[index], false, true});
    p_.region_of[index] = target;
    close_open(Refusal::before_reduction, index, target);
  }

  // The open row region that computes `index` once per row: it has the region's kept axes (the
  // folded ones dropped or kept as 1s) and reads one of the region's per-row values.
  std::int32_t row_region_computing(std::uint32_t index) {
    std::erase_if(open_rows_, [&](std::int32_t r) { return closed_[r]; });
    for (const std::int32_t r : open_rows_) {
      if (full(r) || !is_per_row_shape(p_.regions[r], p_.graph.nodes[index]->shape)) continue;
      absl::flat_hash_map<std::uint32_t, bool> seen;
      if (reads_per_row_value(index, r, seen)) return r;
    }
    return Partition::kNoRegion;
  }

  // Whether inlined work from `index` reaches a reduction or per-row root of region r.
  bool reads_per_row_value(std::uint32_t index, std::int32_t r,
                           absl::flat_hash_map<std::uint32_t, bool>& seen) const {
    for (Node* input : p_.graph.nodes[index]->inputs) {
      if (!input->is_pending()) continue;
      const std::uint32_t i = input->trace_index;
      if (!seen.try_emplace(i, true).second) continue;
      if (p_.cuts.cut[i]) {
        if (p_.region_of[i] == r) return true;
        continue;
      }
      if (reads_per_row_value(i, r, seen)) return true;
    }
    return false;
  }

  Partition& p_;
  PartitionOptions options_;
  std::vector<bool> closed_;        // by region: nothing more joins it
  std::vector<std::int32_t> open_;  // the regions not closed, in order
  absl::flat_hash_map<Shape, RegionsOver, ShapeHash> over_shape_;
  // Open row regions and open scan or top-k regions, in order (some since closed).
  std::vector<std::int32_t> open_rows_;
  std::vector<std::int32_t> open_row_ops_;
};

}  // namespace

Partition form_regions(Partition partition, PartitionOptions options) {
  partition.regions.clear();
  partition.region_of.assign(partition.graph.size(), Partition::kNoRegion);
  partition.refusals.clear();
  partition.terms_built = false;
  RegionForming(partition, options).run();
  return partition;
}

}  // namespace lazy::fuse
