#include "ref/input_reach.h"

#include <algorithm>
#include <optional>

#include "ir/view_layout.h"
#include "ref/value.h"

namespace lazy::ref {

absl::flat_hash_map<const ir::Node*, ElementRange> input_reach(std::span<const ir::NodePtr> pending,
                                                               const std::vector<bool>& needed,
                                                               const std::vector<bool>& live) {
  absl::flat_hash_map<const ir::Node*, ElementRange> reach;
  const auto widen = [&](const ir::Node* input, ElementRange range) {
    const auto [it, added] = reach.try_emplace(input, range);
    ElementRange& kept = it->second;
    if (added || range.first == range.second) return;
    kept = kept.first == kept.second ? range
                                     : ElementRange{std::min(kept.first, range.first),
                                                    std::max(kept.second, range.second)};
  };
  // Per pending view over an input (through views only): that input, and the view's layout of
  // the input's storage.
  std::vector<std::optional<std::pair<const ir::Node*, ir::Layout>>> view_of(pending.size());
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (!needed[i]) continue;
    const ir::Node& node = *pending[i];
    for (const ir::Node* input : node.inputs) {
      std::optional<std::pair<const ir::Node*, ir::Layout>> read;
      if (!input->is_pending()) {
        read.emplace(input, input->data->layout);
      } else {
        read = view_of[input->trace_index];
      }
      if (!read) continue;
      if (ir::op_kind(node.op) == ir::OpKind::view) {
        // Its readers say what it reaches; a reshape strides cannot express copies all of it.
        if (std::optional<ir::Layout> made = ir::view_layout(read->second, node)) {
          if (live[i]) widen(read->first, reached_elements(*made));
          view_of[i].emplace(read->first, *made);
          continue;
        }
      }
      widen(read->first, reached_elements(read->second));
    }
  }
  return reach;
}

}  // namespace lazy::ref
