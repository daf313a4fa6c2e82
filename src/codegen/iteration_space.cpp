#include "codegen/iteration_space.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "ir/settings.h"

namespace lazy::codegen {

namespace {

// Strides of an access over the region's dims (all zero for a rank-0 layout).
MergedDims strides_over(const Access& access, int rank) {
  MergedDims strides(rank, 0);
  if (access.layout.shape.rank() == 0) return strides;
  for (int d = 0; d < rank; ++d) strides[d] = access.layout.strides[d];
  return strides;
}

}  // namespace

bool reads_aligned_groups(const AccessPlan& plan, int width) {
  if (plan.mode == AccessMode::uniform || plan.offset % width != 0) return false;
  if (plan.mode == AccessMode::dense) return true;
  if (plan.strides.back() != 1) return false;
  for (std::size_t d = 0; d + 1 < plan.strides.size(); ++d)
    if (plan.strides[d] % width != 0) return false;
  return true;
}

bool IterationSpace::needs_multi_index() const {
  return std::any_of(accesses.begin(), accesses.end(),
                     [](const AccessPlan& a) { return a.mode == AccessMode::strided; });
}

IterationSpace plan_iteration_space(const Shape& shape, std::span<const Access> accesses,
                                    int bytes_per_thread, bool spread_small, int max_width) {
  IterationSpace space;
  space.numel = shape.numel();
  if (space.numel == 0) {
    // No element exists, so no access may be read outside the loop over elements: a reduction
    // over an empty extent still launches to write its identity, and a hoisted (uniform) load
    // would read an empty tensor's null address.
    space.accesses.clear();
    for (const Access& access : accesses)
      space.accesses.push_back(AccessPlan{AccessMode::dense, access.layout.offset, {}});
    space.vector_width = 1;
    // A reduction over an empty extent still writes every result, which may be past 2^31.
    space.index_32bit = false;
    return space;
  }
  const int rank = shape.rank();
  std::vector<MergedDims> strides;
  strides.reserve(accesses.size());
  for (const Access& access : accesses) strides.push_back(strides_over(access, rank));

  // Merge from the innermost dim outwards: dim d joins the group inside it when every access
  // steps over the group contiguously. Size-1 dims vanish.
  MergedDims dims;                        // innermost first while building
  std::vector<MergedDims> group_strides;  // per access, innermost first
  group_strides.resize(accesses.size());
  for (int d = rank - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    bool merges = !dims.empty();
    for (std::size_t a = 0; merges && a < accesses.size(); ++a)
      merges = strides[a][d] == group_strides[a].back() * dims.back();
    if (merges) {
      dims.back() *= shape[d];
    } else {
      dims.push_back(shape[d]);
      for (std::size_t a = 0; a < accesses.size(); ++a) group_strides[a].push_back(strides[a][d]);
    }
  }
  std::reverse(dims.begin(), dims.end());
  space.dims = dims;
  const int merged = int(dims.size());

  space.accesses.reserve(accesses.size());
  for (std::size_t a = 0; a < accesses.size(); ++a) {
    AccessPlan plan;
    plan.offset = accesses[a].layout.offset;
    plan.strides.assign(group_strides[a].rbegin(), group_strides[a].rend());
    bool uniform = std::all_of(plan.strides.begin(), plan.strides.end(),
                               [](std::int64_t s) { return s == 0; });
    bool dense = true;
    std::int64_t expected = 1;
    for (int d = merged - 1; d >= 0; --d) {
      dense = dense && plan.strides[d] == expected;
      expected *= dims[d];
    }
    plan.mode = uniform && space.numel > 1 ? AccessMode::uniform
                : dense                    ? AccessMode::dense
                                           : AccessMode::strided;
    if (plan.mode == AccessMode::uniform || merged == 0) plan.mode = AccessMode::uniform;
    space.accesses.push_back(std::move(plan));
  }

  // 32-bit indices when the iteration space and every offset reached fit.
  constexpr std::int64_t kLimit = std::numeric_limits<std::int32_t>::max();
  space.index_32bit = space.numel <= kLimit;
  for (const AccessPlan& plan : space.accesses) {
    std::int64_t lo = plan.offset, hi = plan.offset;
    if (plan.mode == AccessMode::dense) hi += space.numel - 1;
    if (plan.mode == AccessMode::strided) {
      for (int d = 0; d < merged; ++d) {
        std::int64_t reach = (dims[d] - 1) * plan.strides[d];
        (reach < 0 ? lo : hi) += reach;
      }
    }
    space.index_32bit = space.index_32bit && lo >= -kLimit && hi <= kLimit;
  }

  // Vector width: 16 bytes of the narrowest tensor touched, when every access can take groups
  // of that many consecutive elements at aligned addresses.
  constexpr int kAccessBytes = 16;  // the widest load or store one thread issues
  int min_itemsize = kAccessBytes;
  for (const Access& access : accesses)
    if (access.itemsize > 0) min_itemsize = std::min(min_itemsize, access.itemsize);
  // Groups of whole 16-byte accesses for every tensor, at most kMaxGroup elements.
  constexpr int kMaxGroup = 16;
  int width = std::min(bytes_per_thread / min_itemsize, kMaxGroup);
  while (width > std::max(max_width, 1)) width /= 2;
  // A group's loads and stores live in registers together: past kMostGroupBytes (a fused
  // optimizer step over four bf16-gradient tensors, 104 bytes an element) a thread spills.
  int bytes_per_element = 0;
  for (std::size_t a = 0; a < accesses.size(); ++a)
    if (space.accesses[a].mode != AccessMode::uniform)
      bytes_per_element += std::max(accesses[a].itemsize, 0);
  while (width > 1 && width * bytes_per_element > kMostGroupBytes) width /= 2;
  // Spread small: down to no groups, since such a kernel is bound by the latency of its math,
  // which more SMs hide and vectors do not. 4096 f32 through 64 ops: 8.9 us at 8 a thread.
  while (spread_small && width > 1 && space.numel < std::int64_t(width) * kThreadsToFillTheGpu)
    width = width * min_itemsize > kAccessBytes ? width / 2 : 1;
  bool ok = width > 1;
  bool strided_present = space.needs_multi_index();
  if (ok && strided_present) ok = dims.back() % width == 0;
  // Bytes an element that move as vectors, and that unaligned loads read one by one: one by one,
  // a warp's load instruction spans width times the lines, which L1 serves again for the
  // group's other elements. A kernel of such loads alone is faster an element a thread.
  int vector_bytes = 0, alone_bytes = 0;
  for (std::size_t a = 0; ok && a < accesses.size(); ++a) {
    AccessPlan& plan = space.accesses[a];
    const bool unit = plan.mode == AccessMode::dense ||
                      (plan.mode == AccessMode::strided && plan.strides.back() == 1);
    if (accesses[a].itemsize == 0 || !unit) continue;
    const bool aligned = reads_aligned_groups(plan, width);
    plan.unaligned = !aligned;
    (aligned ? vector_bytes : alone_bytes) += accesses[a].itemsize;
    ok = aligned || accesses[a].load;
  }
  ok = ok && vector_bytes >= alone_bytes;
  space.vector_width = ok ? width : 1;
  if (!ok)
    for (AccessPlan& plan : space.accesses) plan.unaligned = false;
  return space;
}

// Read at each kernel generated, so a test of codegen may set it; a plan made before a change
// keeps its kernels (plan caches do not key on a tuning setting).
int forced_bytes_per_thread() {
  return int(ir::integer_setting(ir::Setting::bytes_per_thread));
}

int bytes_per_thread(int transcendentals_per_element) {
  if (const int forced = forced_bytes_per_thread(); forced != 0) return forced;
  return transcendentals_per_element >= kTranscendentalsForMathBound ? kMathBoundBytesPerThread
                                                                     : kMemoryBoundBytesPerThread;
}

int most_elements_per_thread(int transcendentals_per_element) {
  return std::max(kUnrolledTranscendentals / std::max(transcendentals_per_element, 1), 1);
}

std::uint64_t fast_div_constants(std::uint32_t divisor) {
  if (divisor == 0 || divisor > std::uint32_t(std::numeric_limits<std::int32_t>::max()))
    throw std::logic_error("lazyfuse internal error: a fast division by " +
                           std::to_string(divisor) + " (it divides by 1 to 2^31 - 1)");
  std::uint32_t shift = 0;
  while (shift < 32 && (std::uint64_t(1) << shift) < divisor) ++shift;
  std::uint64_t magic =
      ((std::uint64_t(1) << 32) * ((std::uint64_t(1) << shift) - divisor)) / divisor + 1;
  return (magic & 0xffffffffu) | (std::uint64_t(shift) << 32);
}

}  // namespace lazy::codegen
