#include "runtime/buffer_reuse.h"

#include <sstream>

#include <absl/container/flat_hash_set.h>

namespace lazy::runtime {

namespace {

using fuse::Term;

// Region kinds whose kernel writes each element root one value per element of the iteration
// space, at the element's own position, after reading what that element needs: the pointwise
// kernel (each thread loads its group, then stores it) and the row kernel (a row's element is
// loaded and stored by the same thread in every phase). A reduction kernel's threads read other
// results' elements, a scan's are not worth proving safe, and cuBLASLt reads its inputs in an
// order of its own.
bool writes_elements_in_place(const fuse::Region& region) {
  return !region.reduction && !region.matmul && !region.scan && !region.top_k && !region.scatter;
}

// A root written one value per element of the iteration space, densely.
bool dense_element_root(const fuse::Region& region, const fuse::Root& root, const ir::Node& node) {
  return !root.per_row && node.shape == region.shape && node.shape.numel() > 0;
}

// Element i of the iteration space reads element i of the source's memory (a gather reads where
// its index points).
bool reads_own_element(const Term& term, const Shape& space) {
  return !term.gather && term.layout.shape == space && term.layout.offset == 0 &&
         term.layout.is_contiguous();
}

// Whether every load of root `source` in `region` reads it at the element being written.
bool only_read_in_place(const fuse::Region& region, std::uint32_t source) {
  for (const Term& term : region.terms) {
    const bool loads_source =
        term.kind == Term::Kind::load && !term.external && !term.from_copy && term.source == source;
    if (loads_source && !reads_own_element(term, region.shape)) return false;
  }
  return true;
}

}  // namespace

LastUses last_uses(const fuse::Partition& partition, const PlanIndices& index,
                   std::span<const PlannedView> live_views) {
  const fuse::Graph& graph = partition.graph;
  LastUses last_use;
  for (std::size_t k = 0; k < partition.regions.size(); ++k) {
    for (const fuse::Root& root : partition.regions[k].roots)
      if (!root.external_copy && !graph.live[root.node]) last_use[index(root.node)] = k;
    for (const Term& term : partition.regions[k].terms)
      if (term.kind == Term::Kind::load && !term.external && !graph.live[term.source]) {
        last_use[index(term.source)] = k;
      }
  }
  for (const PlannedView& view : live_views)
    if (view.base_kind == PlannedView::Base::root) last_use.erase(view.base);
  return last_use;
}

std::vector<BufferReuse> plan_buffer_reuse(const fuse::Partition& partition,
                                           const PlanIndices& index, const LastUses& last_use) {
  const std::vector<ir::NodePtr>& nodes = partition.graph.nodes;
  std::vector<BufferReuse> reuses;
  for (std::size_t k = 0; k < partition.regions.size(); ++k) {
    const fuse::Region& region = partition.regions[k];
    if (!writes_elements_in_place(region)) continue;
    absl::flat_hash_set<std::uint32_t> taken;
    for (std::size_t r = 0; r < region.roots.size(); ++r) {
      const fuse::Root& root = region.roots[r];
      if (root.external_copy) continue;
      const ir::Node& written = *nodes[root.node];
      if (!dense_element_root(region, root, written)) continue;
      for (const Term& term : region.terms) {
        if (term.kind != Term::Kind::load || term.external || term.from_copy) continue;
        const std::uint32_t source = term.source;
        // Missing when held, or the base of a held view: its memory outlives the sync.
        const auto dies = last_use.find(index(source));
        if (dies == last_use.end() || dies->second != k || taken.contains(source)) continue;
        const ir::Node& input = *nodes[source];
        if (input.dtype != written.dtype || input.shape.numel() != written.shape.numel()) continue;
        if (!only_read_in_place(region, source)) continue;
        taken.insert(source);
        reuses.push_back({k, r, source});
        break;
      }
    }
  }
  return reuses;
}

std::string describe_buffer_reuse(std::span<const BufferReuse> reuses,
                                  const fuse::Partition& partition) {
  const std::vector<ir::NodePtr>& nodes = partition.graph.nodes;
  std::ostringstream out;
  for (const BufferReuse& reuse : reuses) {
    const std::uint32_t written = partition.regions[reuse.region].roots[reuse.root].node;
    const ir::Node& node = *nodes[written];
    const ir::Node& source = *nodes[reuse.source];
    out << "region " << reuse.region << " writes %" << written << " " << ir::op_name(node.op)
        << " from " << node.loc.file_name() << ":" << node.loc.line() << " into the memory of %"
        << reuse.source << " " << ir::op_name(source.op) << " from " << source.loc.file_name()
        << ":" << source.loc.line() << " (read last there)\n";
  }
  return out.str();
}

}  // namespace lazy::runtime
