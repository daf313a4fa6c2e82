#include "codegen/column_reduction.h"

#include <algorithm>
#include <limits>

#include "ir/integer_math.h"

namespace lazy::codegen {

namespace {

// An access's stride along the folded dims [kept_rank, rank) walked as one dim (0 when they hold
// one element), or nothing when they cannot be walked so.
std::optional<std::int64_t> folded_stride(const Shape& shape, int kept_rank,
                                          const ir::Layout& layout) {
  if (layout.shape.rank() == 0) return 0;
  std::int64_t stride = 0;
  std::int64_t next = 0;  // the stride the next dim out must have to merge
  bool first = true;
  for (int d = shape.rank() - 1; d >= kept_rank; --d) {
    if (shape[d] == 1) continue;
    if (first) {
      stride = layout.strides[d];
      first = false;
    } else if (layout.strides[d] != next) {
      return std::nullopt;
    }
    next = layout.strides[d] * shape[d];
  }
  return stride;
}

// The smallest power of two at least n, but at most cap (a power of two).
std::int64_t power_of_two_at_least(std::int64_t n, std::int64_t cap) {
  std::int64_t power = 1;
  while (power < n && power < cap) power *= 2;
  return power;
}

}  // namespace

std::optional<ColumnReduction> plan_column_reduction(const Shape& shape, int folded_rank,
                                                     std::span<const Access> accesses,
                                                     int threads_per_block) {
  const int kept_rank = shape.rank() - folded_rank;
  Shape kept_shape;
  for (int d = 0; d < kept_rank; ++d) kept_shape.push_back(shape[d]);
  if (kept_shape.numel() <= 1) return std::nullopt;  // one result: nothing to spread over threads

  ColumnReduction plan;
  plan.extent = 1;
  for (int d = kept_rank; d < shape.rank(); ++d) plan.extent *= shape[d];
  std::vector<Access> kept_accesses;
  for (const Access& access : accesses) {
    std::optional<std::int64_t> stride = folded_stride(shape, kept_rank, access.layout);
    if (!stride) return std::nullopt;
    plan.folded_strides.push_back(*stride);
    Access kept = access;
    if (access.layout.shape.rank() != 0) kept.layout.shape = kept_shape;
    kept_accesses.push_back(kept);
  }
  plan.kept = plan_iteration_space(kept_shape, kept_accesses);
  IterationSpace& kept = plan.kept;

  // Loads must read neighbouring results at neighbouring addresses (or all at one), or the
  // column walk gains nothing.
  bool coalesced = false;
  for (std::size_t a = 0; a < accesses.size(); ++a) {
    AccessPlan& access = kept.accesses[a];
    const std::int64_t inner = access.strides.back();
    if (accesses[a].itemsize > 0 && inner != 0 && inner != 1) return std::nullopt;
    coalesced = coalesced || (accesses[a].itemsize > 0 && inner == 1);
    // Uniform only if it does not move along the folded elements either; offsets are explicit.
    if (access.mode == AccessMode::dense || plan.folded_strides[a] != 0)
      access.mode = AccessMode::strided;
  }
  if (!coalesced) return std::nullopt;

  // 32-bit indices when every element and offset reached fits.
  constexpr std::int64_t kLimit = std::numeric_limits<std::int32_t>::max();
  kept.index_32bit = shape.numel() <= kLimit;
  for (std::size_t a = 0; a < accesses.size(); ++a) {
    const AccessPlan& access = kept.accesses[a];
    std::int64_t lo = access.offset, hi = access.offset;
    for (std::size_t d = 0; d < kept.dims.size(); ++d) {
      std::int64_t reach = (kept.dims[d] - 1) * access.strides[d];
      (reach < 0 ? lo : hi) += reach;
    }
    std::int64_t reach = std::max<std::int64_t>(plan.extent - 1, 0) * plan.folded_strides[a];
    (reach < 0 ? lo : hi) += reach;
    kept.index_32bit = kept.index_32bit && lo >= -kLimit && hi <= kLimit;
  }

  // Results per thread: one 16-byte load of the narrowest tensor, when every load at kept
  // stride 1 starts each group at a multiple of the width (aligned).
  constexpr int kAccessBytes = 16;
  int min_itemsize = kAccessBytes;
  for (const Access& access : accesses)
    if (access.itemsize > 0) min_itemsize = std::min(min_itemsize, access.itemsize);
  const int widest = std::min(kAccessBytes / min_itemsize, kMaxColumnVectorWidth);
  bool ok = widest > 1 && kept.dims.back() % widest == 0;
  for (std::size_t a = 0; ok && a < accesses.size(); ++a) {
    const AccessPlan& access = kept.accesses[a];
    if (accesses[a].itemsize == 0 || access.strides.back() != 1) continue;
    ok = access.offset % widest == 0 && plan.folded_strides[a] % widest == 0;
    for (std::size_t d = 0; ok && d + 1 < kept.dims.size(); ++d)
      ok = access.strides[d] % widest == 0;
  }
  kept.vector_width = ok ? widest : 1;
  plan.groups = kept.numel / kept.vector_width;

  // Lanes: long runs of each row where that leaves enough blocks (never more lanes than groups);
  // the rest of the block splits the folded elements, so that few results with long folds still
  // give the GPU many threads, but never more slices than elements.
  const int width = kept.vector_width;
  std::int64_t lanes =
      power_of_two_at_least(plan.groups, std::max(1, kColumnResultsPerBlockRow / width));
  const auto blocks = [&](std::int64_t l) { return ir::ceil_div(plan.groups, l); };
  while (lanes > std::max(1, kColumnMinResultsPerRow / width) &&
         blocks(lanes) < kColumnTargetBlocks) {
    lanes /= 2;
  }
  std::int64_t slices = power_of_two_at_least(plan.extent, threads_per_block / lanes);
  plan.lanes = int(threads_per_block / slices);
  // A long fold in fewer blocks than the block-per-result kernel would launch, and than SMs:
  // that kernel's blocks of threads per result do it sooner.
  if (plan.extent > threads_per_block &&
      blocks(plan.lanes) < std::min(kept.numel, kColumnMinBlocks)) {
    return std::nullopt;
  }
  return plan;
}

}  // namespace lazy::codegen
