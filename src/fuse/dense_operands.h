// Operands a kernel of its own reads from memory as they lie (a matrix product's, a scatter's):
// which one must be written densely first, and the cut that writes it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "fuse/partition.h"
#include "ir/layout.h"
#include "ir/matmul_problem.h"
#include "ir/node.h"

namespace lazy::fuse {

// The input of `product` (a MatMul node) whose layout the cuBLASLt call cannot take, given each
// input's `layouts` in memory; none: `problem` is set to the call.
std::optional<int> matmul_input_to_write(const ir::Node& product,
                                         std::span<const ir::Layout> layouts,
                                         ir::MatmulProblem& problem);

// Cuts `input` of `reader` to be written densely: a pending node is cut for `why`, an external
// input (`external_slot`) gets a dense copy. Either must be new, or made in this pass by another
// access (then it is written from the next pass, and nothing changes now).
void cut_to_write_densely(Partition& p, const ir::Node& input,
                          std::optional<std::uint32_t> external_slot, const ir::Node& reader,
                          CutReason why);

}  // namespace lazy::fuse
