// When a sync's intermediates die, and which kernel outputs are written into the memory of an
// input that dies in the same kernel (Inductor's in-place buffer reuse): SwiGLU's
// silu(g) * u lands in g's buffer, a softmax in its scores' buffer, so a step holds one buffer
// fewer at its peak. Decided from the partition when the plan is built; replay only follows it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "fuse/partition.h"
#include "runtime/plan.h"
#include "runtime/plan_indices.h"

namespace lazy::runtime {

// Plan index of each intermediate root -> the region that reads it last (or writes it, if none
// reads it). Held nodes and the bases of held views outlive the sync: they are not in it.
using LastUses = absl::flat_hash_map<std::uint32_t, std::size_t>;
LastUses last_uses(const fuse::Partition& partition, const PlanIndices& index,
                   std::span<const PlannedView> live_views);

// Root `root` of region `region` is written into the memory of root `source` of an earlier
// region (graph indices), which region `region` is the last to read; or, when `external`, may be
// written over external input `source` (a slot), if nothing else holds it when the plan replays.
struct BufferReuse {
  std::size_t region;
  std::size_t root;
  std::uint32_t source;
  bool external = false;
};

// The outputs that take a dying input's memory, by region and root in order; each input is
// taken once. An output qualifies when its kernel writes it one value per element of the
// iteration space, densely (a pointwise or row region's element root, not a reduction or a
// library call, which reads its inputs in its own order), and the input has its dtype and element
// count, dies in this kernel, and is read only at the element being written (its every load is
// the identity over the iteration space): each element is then read by the thread that writes
// that element of the output, before it writes it. An output that takes no dying root lists every
// external input it may be written over on the same terms (one entry each), unless a held view is
// based on the input; the replay picks one that nothing else holds.
std::vector<BufferReuse> plan_buffer_reuse(const fuse::Partition& partition,
                                           const PlanIndices& index, const LastUses& last_use,
                                           std::span<const PlannedView> live_views);

// One line per reuse, for LAZY_DEBUG=2.
std::string describe_buffer_reuse(std::span<const BufferReuse> reuses,
                                  const fuse::Partition& partition);

}  // namespace lazy::runtime
