#include "fuse/dense_operands.h"

#include <algorithm>

#include "fuse/internal_error.h"
#include "ir/matmul.h"

namespace lazy::fuse {

std::optional<int> matmul_input_to_write(const ir::Node& product,
                                         std::span<const ir::Layout> layouts,
                                         ir::MatmulProblem& problem) {
  const ir::MatmulEpilogue epilogue = ir::matmul_epilogue(product);
  if (const int bias = ir::matmul_bias_input(epilogue); bias >= 0) {
    const std::optional<ir::Layout> vector =
        ir::reshape_layout(layouts[bias], Shape{layouts[bias].shape.numel()});
    if (!vector || !ir::bias_maps(*vector)) return bias;
  }
  // cuBLASLt reads the aux operand in the result's layout: dense [..., M, N].
  if (const int aux = ir::matmul_aux_input(epilogue); aux >= 0) {
    if (layouts[aux].offset != 0 || !layouts[aux].is_contiguous()) return aux;
  }
  const int residual = ir::matmul_residual_input(epilogue);
  const ir::MatmulMapping mapping =
      ir::map_matmul(layouts[0], layouts[1], residual >= 0 ? &layouts[residual] : nullptr);
  if (!mapping.problem) {
    return *mapping.inexpressible == ir::MatmulOperand::a   ? 0
           : *mapping.inexpressible == ir::MatmulOperand::b ? 1
                                                            : residual;
  }
  problem = *mapping.problem;
  return std::nullopt;
}

void cut_to_write_densely(Partition& p, const ir::Node& input,
                          std::optional<std::uint32_t> external_slot, const ir::Node& reader,
                          CutReason why) {
  Cuts& cuts = p.cuts;
  // Cut (or an external input copied) by another access earlier in this pass (a reshape of the
  // same flip: seed 17738 program 705): its region, and the dense layout, come with the next pass.
  const auto copy_written = [&](std::uint32_t slot) {
    return std::any_of(p.regions.begin(), p.regions.end(), [&](const Region& r) {
      return std::any_of(r.roots.begin(), r.roots.end(),
                         [&](const Root& root) { return root.external_copy && root.node == slot; });
    });
  };
  const bool cut_in_this_pass =
      external_slot
          ? cuts.external_copy[*external_slot] && !copy_written(*external_slot)
          : cuts.cut[input.trace_index] && p.region_of[input.trace_index] == Partition::kNoRegion;
  if (cut_in_this_pass) return;
  const bool done =
      external_slot ? cuts.external_copy[*external_slot] : cuts.cut[input.trace_index];
  if (done) internal_error(reader, "an operand written densely still cannot be read from memory");
  if (external_slot) {
    cuts.external_copy[*external_slot] = true;
  } else {
    cuts.add(input.trace_index, why);
  }
}

}  // namespace lazy::fuse
