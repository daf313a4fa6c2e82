// The order a pointwise kernel's groups visit its iteration space. Row-major by default; where a
// large input is broadcast along an outer dim (a [seq, dim] position table added to every
// sequence of a batch), that dim is visited just outside the innermost one, so the groups reading
// the same broadcast elements run close together and find them in L2 instead of reading them
// from memory once per outer index. Each group still writes a contiguous run of the innermost dim.
#pragma once

#include <optional>
#include <span>

#include "codegen/iteration_space.h"
#include "codegen/kernel_builder.h"

namespace lazy::codegen {

// Visit position v of a group maps to element ((a * outer + o) * middle + m) * inner + l, where v
// = ((a * middle + m) * outer + o) * inner + l: dim `outer` swapped with the dims between it and
// the innermost one (`middle` elements).
struct ReuseOrder {
  std::int64_t inner;   // the innermost dim
  std::int64_t outer;   // the dim the broadcast input does not vary along
  std::int64_t middle;  // the dims between them
};

// Broadcast inputs at least this large are worth reordering for (L2 is 50 MB on an H100).
inline constexpr std::int64_t kReuseOrderMinBytes = std::int64_t(4) << 20;

// The reordering for a kernel walked as `space` over `accesses`, if one pays: 32-bit indices, at
// least three merged dims, an innermost dim of at least a warp's vectors (stores stay coalesced),
// and a memory input of kReuseOrderMinBytes or more with stride 0 along an outer dim that is not
// already next to the innermost one.
std::optional<ReuseOrder> plan_reuse_order(const IterationSpace& space,
                                           std::span<const Access> accesses);

// The kernel arguments the reordering reads: each size and its division constants.
void declare_reuse_order_args(const ReuseOrder& order, KernelBuilder& builder);
// The element visit position `position` (an expression) maps to (lz_reuse_order).
std::string reordered_element(const std::string& position);

}  // namespace lazy::codegen
