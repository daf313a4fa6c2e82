#include "fuse/partition.h"

#include <sstream>

#include "fuse/build_terms.h"
#include "fuse/cut_nodes.h"
#include "fuse/form_regions.h"
#include "fuse/matmul_epilogues.h"
#include "fuse/recomputed_operands.h"
#include "fuse/shared_recompute.h"
#include "fuse/split_reductions.h"
#include "fuse/stored_reductions.h"
#include "ir/matmul.h"
#include "ir/scatter.h"

namespace lazy::fuse {

namespace {

bool refuses_row_fusion(Refusal refusal) {
  return refusal == Refusal::not_trailing_axes || refusal == Refusal::empty_input ||
         refusal == Refusal::rows_too_long || refusal == Refusal::access_not_row_strided ||
         refusal == Refusal::rows_adjacent_in_memory;
}

}  // namespace

void Cuts::add(std::uint32_t i, CutReason why) {
  if (cut[i]) return;
  cut[i] = true;
  reason[i] = why;
}

bool Cuts::add_read_back(std::uint32_t i, CutReason why) {
  const bool added = !cut[i] || !read_back[i];
  add(i, why);
  read_back[i] = true;
  return added;
}

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
    case CutReason::scan:
      return "scan";
    case CutReason::top_k:
      return "top_k";
    case CutReason::matmul:
      return "matmul";
    case CutReason::matmul_operand:
      return "matmul_operand";
    case CutReason::matmul_layout:
      return "matmul_layout";
    case CutReason::scatter:
      return "scatter";
    case CutReason::scatter_operand:
      return "scatter_operand";
    case CutReason::gather_source:
      return "gather_source";
    case CutReason::gather_in_reduction:
      return "gather_in_reduction";
    case CutReason::concat_in_reduction:
      return "concat_in_reduction";
    case CutReason::concat_per_kernel:
      return "concat_per_kernel";
    case CutReason::recomputed:
      return "recomputed";
  }
  return "?";
}

std::string_view refusal_name(Refusal refusal) {
  switch (refusal) {
    case Refusal::not_trailing_axes:
      return "not_trailing_axes";
    case Refusal::empty_input:
      return "empty_input";
    case Refusal::rows_too_long:
      return "rows_too_long";
    case Refusal::access_not_row_strided:
      return "access_not_row_strided";
    case Refusal::rows_adjacent_in_memory:
      return "rows_adjacent_in_memory";
    case Refusal::written_alone:
      return "written_alone";
    case Refusal::reduction_kernel:
      return "reduction_kernel";
    case Refusal::scan_kernel:
      return "scan_kernel";
    case Refusal::top_k_kernel:
      return "top_k_kernel";
    case Refusal::before_read_back:
      return "before_read_back";
    case Refusal::before_reduction:
      return "before_reduction";
    case Refusal::before_scan:
      return "before_scan";
    case Refusal::before_top_k:
      return "before_top_k";
    case Refusal::region_closed:
      return "region_closed";
    case Refusal::outputs_limit:
      return "outputs_limit";
    case Refusal::library_call:
      return "library_call";
    case Refusal::before_matmul:
      return "before_matmul";
    case Refusal::scatter_kernel:
      return "scatter_kernel";
    case Refusal::before_scatter:
      return "before_scatter";
  }
  return "?";
}

Partition partition(std::span<const ir::NodePtr> pending, const std::vector<bool>& live,
                    std::span<const ir::NodePtr> externals, PartitionOptions options) {
  Graph graph = recorded_graph(pending, live, externals);
  if (options.fusion) {
    graph = recompute_operands_read_late(fold_matmul_epilogues(std::move(graph)));
  }
  Partition p = cut_nodes(split_reductions(std::move(graph)), options);
  do {
    ++p.passes;
    p = form_regions(std::move(p), options);
    if (cut_values_recomputed_by_several_regions(p)) p = form_regions(std::move(p), options);
    if (store_row_reductions_read_later(p)) p = form_regions(std::move(p), options);
    p = build_terms(std::move(p));
  } while (!p.terms_built);
  return p;
}

std::string Partition::describe() const {
  std::span<const ir::NodePtr> nodes = graph.nodes;
  std::ostringstream out;
  out << graph.describe_rewrites();
  out << "partitioned in " << passes << (passes == 1 ? " pass\n" : " passes\n");
  for (std::size_t r = 0; r < regions.size(); ++r) {
    const Region& region = regions[r];
    out << "region " << r << ": iteration space " << region.shape.to_string() << ", "
        << region.roots.size() << " output(s), " << region.terms.size() << " terms\n";
    if (region.matmul) {
      const ir::MatmulProblem& call = region.matmul->problem;
      const ir::Node& node = *nodes[region.matmul->node];
      const ir::MatmulEpilogue epilogue = ir::matmul_epilogue(node);
      out << "  one matrix product: " << dtype_name(node.dtype) << " m " << call.m << " n "
          << call.n << " k " << call.k << " batch " << call.batch << ", A"
          << (call.a.transposed ? "^T" : "") << " ld " << call.a.ld << ", B"
          << (call.b.transposed ? "^T" : "") << " ld " << call.b.ld << ", epilogue "
          << (epilogue.bias ? "bias " : "") << (epilogue.residual ? "residual " : "")
          << ir::matmul_activation_name(epilogue.activation) << (epilogue.tf32 ? ", tf32" : "")
          << "\n";
    }
    if (region.row) {
      out << "  folds rows of " << region.row->extent << " element(s) ("
          << region.row->reductions.size() << " reduction(s) in one pass):";
      for (std::uint32_t reduction : region.row->reductions)
        out << " %" << reduction << " " << ir::op_name(nodes[reduction]->op);
      out << "\n";
    }
    if (region.scan) {
      out << "  scans rows of " << region.scan->extent << " element(s), with the work producing "
          << "them inline\n";
    }
    if (region.top_k) {
      out << "  selects the " << region.top_k->k
          << (region.top_k->largest ? " largest" : " smallest") << " of rows of "
          << region.top_k->extent << " element(s), with the work producing them "
          << "inline\n";
    }
    if (region.scatter) {
      const ir::Node& node = *nodes[region.scatter->node];
      const Shape& index = node.inputs[ir::scatter_sorted_index]->shape;
      out << "  " << ir::scatter_caller_name(node) << ": index of shape " << index.to_string()
          << " into axis " << ir::scatter_axis(node) << " of " << node.shape.to_string()
          << ", each output folding in its run of the sorted index\n";
    }
    for (const Root& root : region.roots) {
      if (root.external_copy) {
        out << "  writes a dense copy of input " << root.node << " ("
            << cut_reason_name(root.reason) << ")\n";
        continue;
      }
      const ir::Node& node = *nodes[root.node];
      out << "  writes %" << root.node << " " << ir::op_name(node.op) << " "
          << dtype_name(node.dtype) << node.shape.to_string() << " ("
          << cut_reason_name(root.reason) << ") from " << node.loc.file_name() << ":"
          << node.loc.line() << "\n";
    }
    if (region.closed) {
      out << "  takes no more roots (" << refusal_name(region.closed->reason) << ")";
      if (region.closed->node >= 0) out << " from %" << region.closed->node;
      out << "\n";
    }
  }
  for (const RefusedFusion& refused : refusals) {
    const ir::Node& node = *nodes[refused.node];
    out << "%" << refused.node << " " << ir::op_name(node.op) << " from " << node.loc.file_name()
        << ":" << node.loc.line()
        << (refuses_row_fusion(refused.reason) ? ": no row fusion ("
                                               : ": starts a region of its own (")
        << refusal_name(refused.reason) << ")\n";
  }
  for (std::uint32_t v : live_views) {
    out << "view %" << v << " " << ir::op_name(nodes[v]->op) << " shares its base's memory\n";
  }
  return out.str();
}

}  // namespace lazy::fuse
