// What a region's generated kernel takes as arguments, estimated from its terms: CUDA gives a
// kernel's parameters 32 KiB, and NVRTC refuses a kernel whose arguments need more.
#pragma once

#include <cstdint>

#include "fuse/partition.h"

namespace lazy::fuse {

// The argument bytes a region's terms may need, at most: each load's address, offset and strides,
// each concatenation's period and part ends, each gather's index bounds, each scalar.
std::int64_t argument_bytes(const Region& region);

// What the terms may take of the 32 KiB, leaving room for the sizes and the outputs.
inline constexpr std::int64_t kMaxTermArgumentBytes = 24 * 1024;

}  // namespace lazy::fuse
