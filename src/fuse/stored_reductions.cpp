#include "fuse/stored_reductions.h"

#include "fuse/region_cones.h"
#include "ir/op.h"

namespace lazy::fuse {

bool store_row_reductions_read_later(Partition& p) {
  RegionCones cones(p);
  bool marked = false;
  for (std::size_t r = 0; r < p.regions.size(); ++r) {
    cones.walk(r, [&](std::uint32_t index, bool inlined) {
      if (inlined || p.cuts.stored[index]) return;
      if (p.regions[p.region_of[index]].row &&
          ir::op_kind(p.graph.nodes[index]->op) == ir::OpKind::reduction) {
        p.cuts.stored[index] = true;
        marked = true;
      }
    });
  }
  return marked;
}

}  // namespace lazy::fuse
