// The kernel cache on disk: compiled kernels kept between runs, so a program's second run loads
// them instead of compiling, and the matrix product algorithms LAZY_AUTOTUNE=1 chose, so it does
// not time them again. Configured by environment variables read at first use:
//   LAZY_CACHE_DIR      the directory (else $XDG_CACHE_HOME/lazyfuse, else ~/.cache/lazyfuse)
//   LAZY_CACHE=0        memory only
//   LAZY_CACHE_MAX_MB   the bound, least recently used entries go first (default 256)
//   LAZY_CACHE_SAVE_SOURCE=1  also writes each kernel's .cu beside it
// The command-line tool lazyfuse-cache does the same as these functions.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

namespace lazy {

struct KernelCacheInfo {
  bool enabled =
      false;  // false: LAZY_CACHE=0, or the directory was unusable (one warning said why)
  std::string directory;
  std::int64_t entries = 0;
  std::int64_t bytes = 0;
  std::int64_t max_bytes = 0;
};

struct KernelCacheEntry {
  std::string path;
  std::int64_t bytes = 0;
  double age_seconds = 0;  // since last written or loaded
};

KernelCacheInfo kernel_cache_info();
std::vector<KernelCacheEntry> kernel_cache_entries();
// Removes least recently used entries until the directory holds at most max_bytes; returns how
// many were removed. Throws lazy::ValueError for a negative max_bytes.
std::int64_t prune_kernel_cache(std::int64_t max_bytes,
                                std::source_location loc = std::source_location::current());
// Removes every entry on disk and every compiled kernel in memory; returns the entries removed.
std::int64_t clear_kernel_cache();

}  // namespace lazy
