// Kernels compiled when the library was built, for what a program's first sync usually is: its
// random inputs and parameters (tools/lazyfuse_ship_kernels.cpp lists the programs). With them a
// cold start on an empty cache waits for one compile fewer. Each is a disk cache entry
// (jit/cache_files.h) embedded in the library, so a lookup checks the full key, the checksum and
// the source exactly as a load from disk does; LAZY_SHIPPED_KERNELS=0 leaves them unused.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/hash.h"
#include "jit/nvrtc.h"

namespace lazy::jit {

struct ShippedKernel {
  int arch;                // compiled for sm_<arch>
  NvrtcVersion nvrtc;      // by this NVRTC, which is part of its key
  std::string_view key;    // the key in hex (ir::Hash128::to_hex)
  std::string_view entry;  // header, source and CUBIN, as the disk cache writes them
};

// What this build of the library ships: generated at build time (an empty list when it was
// configured with LAZY_SHIP_KERNELS=OFF or built where NVRTC was missing).
std::span<const ShippedKernel> shipped_kernels();

// The CUBIN shipped for `source` compiled for sm_<arch> with `options`, if any. Shipped kernels
// are filed under their source without its "// op (file:line)" comments
// (codegen::without_op_places): the tool recorded them at its own lines. Counts a hit.
std::optional<std::vector<char>> find_shipped_kernel(const std::string& source, int arch,
                                                     const std::vector<std::string>& options);

// Lookups that found a shipped kernel since the start or the last reset (lazy::Stats).
std::atomic<std::int64_t>& shipped_kernel_hits();

}  // namespace lazy::jit
