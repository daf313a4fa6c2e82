#include "codegen/visit_order.h"

#include "codegen/text.h"

namespace lazy::codegen {

namespace {

constexpr std::int64_t kWarp = 32;

// Bytes of memory an access reaches: the dims it varies along, times its element size.
std::int64_t footprint(const IterationSpace& space, const AccessPlan& plan, int itemsize) {
  std::int64_t elements = 1;
  for (std::size_t d = 0; d < plan.strides.size(); ++d)
    if (plan.strides[d] != 0) elements *= space.dims[d];
  return elements * itemsize;
}

}  // namespace

std::optional<ReuseOrder> plan_reuse_order(const IterationSpace& space,
                                           std::span<const Access> accesses) {
  const int rank = int(space.dims.size());
  if (!space.index_32bit || rank < 3 || !space.needs_multi_index()) return std::nullopt;
  if (space.dims.back() < kWarp * space.vector_width) return std::nullopt;
  for (int d = 0; d + 2 < rank; ++d) {
    if (space.dims[d] == 1) continue;
    for (std::size_t a = 0; a < accesses.size(); ++a) {
      const AccessPlan& plan = space.accesses[a];
      if (accesses[a].itemsize == 0 || plan.mode != AccessMode::strided) continue;
      if (plan.strides[d] != 0) continue;
      if (footprint(space, plan, accesses[a].itemsize) < kReuseOrderMinBytes) continue;
      std::int64_t middle = 1;
      for (int m = d + 1; m + 1 < rank; ++m) middle *= space.dims[m];
      return ReuseOrder{space.dims.back(), space.dims[d], middle};
    }
  }
  return std::nullopt;
}

void declare_reuse_order_args(const ReuseOrder& order, KernelBuilder& builder) {
  for (const auto& [name, size] :
       {std::pair{"inner", order.inner}, {"outer", order.outer}, {"middle", order.middle}}) {
    builder.constant(name, std::uint64_t(size));
    builder.constant(cat(name, "_div"), fast_div_constants(std::uint32_t(size)),
                     "unsigned long long");
  }
}

std::string reordered_element(const std::string& position) {
  return cat("lz_reuse_order(", position,
             ", a.inner, a.inner_div, a.outer, a.outer_div, a.middle, a.middle_div)");
}

}  // namespace lazy::codegen
