// How a kernel walks its iteration space: the dims after merging those every access walks
// contiguously, how each access reads, how many elements a thread takes at once, and whether
// 32-bit indices suffice. A pure function of layouts and dtypes, so tests can check it alone.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <absl/container/inlined_vector.h>

#include "ir/layout.h"
#include "lazy/dtype.h"

namespace lazy::codegen {

// One tensor a kernel reads or writes, or a generator's linear index, over the iteration space.
struct Access {
  ir::Layout layout;  // rank 0: one element for every iteration
  int itemsize;       // bytes per element; 0 for a generator (no memory access)
  bool load = false;  // a pointwise kernel's load, which may read a group's elements one by one
};

// Sizes or strides over merged dims: at most kMaxRank, kept inline (a plan miss plans every
// region's space, and allocating these was a tenth of its allocations).
using MergedDims = absl::InlinedVector<std::int64_t, kMaxRank>;

enum class AccessMode : std::uint8_t {
  uniform,  // the same element everywhere
  dense,    // element offset + i
  strided,  // offset + sum of index_d * stride_d over the merged dims
};

struct AccessPlan {
  AccessMode mode;
  std::int64_t offset;
  MergedDims strides;  // over the merged dims (strided mode)
  // A load whose groups do not start at aligned addresses (x[1:] beside x[:-1]): it reads the
  // group's elements one by one while the other accesses take vectors.
  bool unaligned = false;
};

// Whether `plan` reads each group of `width` consecutive elements that starts at a multiple of
// the width as one aligned vector: dense, or strided with an inner stride of 1, its offset and
// outer strides multiples of the width.
bool reads_aligned_groups(const AccessPlan& plan, int width);

struct IterationSpace {
  std::int64_t numel;
  MergedDims dims;  // merged, outermost first; empty for one element
  std::vector<AccessPlan> accesses;
  int vector_width;  // consecutive elements a thread handles as one group (1: no vectors)
  bool index_32bit;  // every index and offset fits in 32 bits
  bool needs_multi_index() const;
};

// Bytes of the narrowest tensor each thread takes per step: one 16-byte access (the widest a
// thread can issue) for memory-bound kernels, two for kernels heavy in transcendental math, whose
// special-function latency more independent elements per thread hide. Measured on H100: chain16
// (8 transcendentals per element) 8% faster at 32 bytes, memory-bound chains 1% slower.
// LAZY_BYTES_PER_THREAD (16, 32 or 64) overrides the choice, at every size (spread_small is off).
inline constexpr int kMemoryBoundBytesPerThread = 16;
inline constexpr int kMathBoundBytesPerThread = 32;
inline constexpr int kTranscendentalsForMathBound = 4;
int bytes_per_thread(int transcendentals_per_element);
// LAZY_BYTES_PER_THREAD, or 0 where the kernel's math picks.
int forced_bytes_per_thread();
// A group's elements each unroll the kernel's math, and NVRTC's time grows with the code: a
// thread takes at most kUnrolledTranscendentals transcendental ops in all (20 chained sins on
// f32 compiled in 1.0 s at 8 elements a thread, in 0.35 s at 2). Such chains are bound by math,
// which the GPU's other threads hide as well as a group would.
inline constexpr int kUnrolledTranscendentals = 64;
int most_elements_per_thread(int transcendentals_per_element);
// The most bytes of loaded and stored values a thread's group of elements may hold.
inline constexpr int kMostGroupBytes = 512;
// Threads that give each SM of an H100 (132) a block of 256: below it a kernel groups fewer
// elements per thread.
inline constexpr std::int64_t kThreadsToFillTheGpu = 132 * 256;

// With spread_small, a shape too small to give every SM its threads at the chosen width takes
// fewer elements a thread (pointwise kernels; a column reduction spreads its rows instead).
// Groups have at most max_width elements. Loads that cannot take aligned vectors read their
// group's elements one by one (AccessPlan::unaligned) where vectors still move at least as many
// bytes as those loads; otherwise, or for any such store, a thread takes one element.
IterationSpace plan_iteration_space(const Shape& shape, std::span<const Access> accesses,
                                    int bytes_per_thread = kMemoryBoundBytesPerThread,
                                    bool spread_small = false, int max_width = 16);

// Granlund-Montgomery constants for dividing 32-bit indices by `divisor` (>= 1) with a
// multiply-high: the magic number in the low 32 bits, the shift in the high 32 (lz_fast_div).
std::uint64_t fast_div_constants(std::uint32_t divisor);

}  // namespace lazy::codegen
