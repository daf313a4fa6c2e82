#include "runtime/buffer_reuse.h"

#include <algorithm>
#include <optional>
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

// Whether every load of `source` (a root, or an external slot) in `region` reads it at the
// element being written.
bool only_read_in_place(const fuse::Region& region, std::uint32_t source, bool external) {
  for (const Term& term : region.terms) {
    const bool loads_source = term.kind == Term::Kind::load && term.external == external &&
                              !term.from_copy && term.source == source;
    if (loads_source && !reads_own_element(term, region.shape)) return false;
  }
  return true;
}

// External slot -> the region that reads it last, for the externals no held view is based on.
absl::flat_hash_map<std::uint32_t, std::size_t> external_last_uses(
    const fuse::Partition& partition, std::span<const PlannedView> live_views) {
  absl::flat_hash_map<std::uint32_t, std::size_t> last_use;
  for (std::size_t k = 0; k < partition.regions.size(); ++k)
    for (const Term& term : partition.regions[k].terms)
      if (term.kind == Term::Kind::load && term.external && !term.from_copy)
        last_use[term.source] = k;
  for (const PlannedView& view : live_views)
    if (view.base_kind == PlannedView::Base::external) last_use.erase(view.base);
  return last_use;
}

// Whether `region` (region k) may write `written` over the memory of `source` (a root, or an
// external slot): the region reads it last, only at the element being written, and it has the
// output's dtype and size.
bool may_take(const fuse::Partition& partition, std::size_t k, const ir::Node& written,
              std::uint32_t source, bool external, std::optional<std::size_t> last_read) {
  const ir::Node& input =
      external ? *partition.graph.externals[source] : *partition.graph.nodes[source];
  return last_read == k && input.dtype == written.dtype &&
         input.shape.numel() == written.shape.numel() &&
         only_read_in_place(partition.regions[k], source, external);
}

// The roots (or external slots) `region` loads, once each, in the order it first loads them.
std::vector<std::uint32_t> loaded_sources(const fuse::Region& region, bool external) {
  std::vector<std::uint32_t> sources;
  for (const Term& term : region.terms) {
    if (term.kind == Term::Kind::load && term.external == external && !term.from_copy &&
        std::find(sources.begin(), sources.end(), term.source) == sources.end()) {
      sources.push_back(term.source);
    }
  }
  return sources;
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
                                           const PlanIndices& index, const LastUses& last_use,
                                           std::span<const PlannedView> live_views) {
  const std::vector<ir::NodePtr>& nodes = partition.graph.nodes;
  const auto external_last_use = external_last_uses(partition, live_views);
  std::vector<BufferReuse> reuses;
  for (std::size_t k = 0; k < partition.regions.size(); ++k) {
    const fuse::Region& region = partition.regions[k];
    if (!writes_elements_in_place(region)) continue;
    const std::vector<std::uint32_t> roots_read = loaded_sources(region, false),
                                     externals_read = loaded_sources(region, true);
    absl::flat_hash_set<std::uint32_t> taken;
    for (std::size_t r = 0; r < region.roots.size(); ++r) {
      const fuse::Root& root = region.roots[r];
      if (root.external_copy) continue;
      const ir::Node& written = *nodes[root.node];
      if (!dense_element_root(region, root, written)) continue;
      // A dying intermediate first, each taken once. Missing from last_use when held, or the
      // base of a held view: its memory outlives the sync.
      bool took_root = false;
      for (const std::uint32_t source : roots_read) {
        const auto dies = last_use.find(index(source));
        if (taken.contains(source) ||
            !may_take(partition, k, written, source, false,
                      dies == last_use.end() ? std::nullopt : std::optional(dies->second))) {
          continue;
        }
        taken.insert(source);
        reuses.push_back({k, r, source});
        took_root = true;
        break;
      }
      if (took_root) continue;
      // Else every fitting input: which one nothing else holds, only the replay can tell, and
      // it hands each to one output.
      for (const std::uint32_t slot : externals_read) {
        const auto dies = external_last_use.find(slot);
        if (may_take(
                partition, k, written, slot, true,
                dies == external_last_use.end() ? std::nullopt : std::optional(dies->second))) {
          reuses.push_back({k, r, slot, true});
        }
      }
    }
  }
  return reuses;
}

std::string describe_buffer_reuse(std::span<const BufferReuse> reuses,
                                  const fuse::Partition& partition) {
  const std::vector<ir::NodePtr>& nodes = partition.graph.nodes;
  std::ostringstream out;
  for (std::size_t i = 0; i < reuses.size(); ++i) {
    const BufferReuse& reuse = reuses[i];
    const std::uint32_t written = partition.regions[reuse.region].roots[reuse.root].node;
    const ir::Node& node = *nodes[written];
    out << "region " << reuse.region << " writes %" << written << " " << ir::op_name(node.op)
        << " from " << node.loc.file_name() << ":" << node.loc.line();
    if (reuse.external) {
      // One line for the inputs the output lists, in the order the replay tries them.
      out << " over the memory of the first of inputs " << reuse.source;
      while (i + 1 < reuses.size() && reuses[i + 1].external &&
             reuses[i + 1].region == reuse.region && reuses[i + 1].root == reuse.root) {
        out << ", " << reuses[++i].source;
      }
      out << " that nothing else holds then (read last there)\n";
      continue;
    }
    const ir::Node& source = *nodes[reuse.source];
    out << " into the memory of %" << reuse.source << " " << ir::op_name(source.op) << " from "
        << source.loc.file_name() << ":" << source.loc.line() << " (read last there)\n";
  }
  return out.str();
}

}  // namespace lazy::runtime
