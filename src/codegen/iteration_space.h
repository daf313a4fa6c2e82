// How a kernel walks its iteration space: the dims after merging those every access walks
// contiguously, how each access reads, how many elements a thread takes at once, and whether
// 32-bit indices suffice. A pure function of layouts and dtypes, so tests can check it alone.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/layout.h"
#include "lazy/dtype.h"

namespace lazy::codegen {

// One tensor a kernel reads or writes, or a generator's linear index, over the iteration space.
struct Access {
  ir::Layout layout;  // rank 0: one element for every iteration
  int itemsize;       // bytes per element; 0 for a generator (no memory access)
};

enum class AccessMode : std::uint8_t {
  uniform,  // the same element everywhere
  dense,    // element offset + i
  strided,  // offset + sum of index_d * stride_d over the merged dims
};

struct AccessPlan {
  AccessMode mode;
  std::int64_t offset;
  std::vector<std::int64_t> strides;  // over the merged dims (strided mode)
};

struct IterationSpace {
  std::int64_t numel;
  std::vector<std::int64_t> dims;  // merged, outermost first; empty for one element
  std::vector<AccessPlan> accesses;
  int vector_width;  // consecutive elements a thread handles as one group (1: no vectors)
  bool index_32bit;  // every index and offset fits in 32 bits
  bool needs_multi_index() const;
};

// Bytes of the narrowest tensor each thread takes per step: one 16-byte access (the widest a
// thread can issue) or several, for more independent work per thread. 16 measured best for
// memory-bound chains on H100; LAZY_BYTES_PER_THREAD (16, 32 or 64) overrides it.
inline constexpr int kDefaultBytesPerThread = 16;
int bytes_per_thread();

IterationSpace plan_iteration_space(const Shape& shape, std::span<const Access> accesses);

// Granlund-Montgomery constants for dividing 32-bit indices by `divisor` (>= 1) with a
// multiply-high: the magic number in the low 32 bits, the shift in the high 32 (lz_fast_div).
std::uint64_t fast_div_constants(std::uint32_t divisor);

}  // namespace lazy::codegen
