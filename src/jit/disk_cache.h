// Compiled kernels on disk, so that a program's next run loads them instead of calling NVRTC.
//
// Layout: <root>/v<format>/nvrtc-<major>.<minor>/sm_<arch>/<first 2 hex of key>/<key>.lzk; each
// entry is a header (magic, format, full key, sizes, XXH3 checksum), the kernel's source and its
// CUBIN. A changed NVRTC or arch reads another directory; a changed source, option or template
// changes the key. The cache can never hurt the program: a bad entry is a miss (and is
// replaced), an unusable directory is one warning and then memory alone. Entries are written and
// read as jit/cache_files.h says; the same root also holds autotuned cuBLASLt algorithms
// (runtime/matmul_algorithm_store.h), which clearing and eviction go over too.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/hash.h"
#include "ir/settings.h"
#include "jit/cache_files.h"
#include "jit/nvrtc.h"

namespace lazy::jit {

struct DiskCacheConfig {
  bool enabled = true;         // LAZY_CACHE=0 turns it off
  std::filesystem::path root;  // LAZY_CACHE_DIR, $XDG_CACHE_HOME/lazyfuse, ~/.cache/lazyfuse
  std::uint64_t max_bytes =    // LAZY_CACHE_MAX_MB
      std::uint64_t(ir::setting_spec(ir::Setting::cache_max_mb).default_value) << 20;
  bool save_source = false;  // LAZY_CACHE_SAVE_SOURCE=1 also writes <key>.cu
};
DiskCacheConfig disk_cache_config_from_env();

struct DiskCacheCounters {
  std::atomic<std::int64_t> hits{0};
  std::atomic<std::int64_t> misses{0};
  std::atomic<std::int64_t> writes{0};
  std::atomic<std::int64_t> rejected{0};  // bad entries, and entries the driver refused
  std::atomic<std::int64_t> evictions{0};
};

struct DiskCacheEntry {
  std::filesystem::path path;
  std::uint64_t bytes;
  std::filesystem::file_time_type last_used;
};

class DiskCache {
 public:
  explicit DiskCache(DiskCacheConfig config);

  // The directory entries for this NVRTC version and arch live in.
  static std::filesystem::path entry_directory(const std::filesystem::path& root,
                                               NvrtcVersion version, int arch);

  // The CUBIN stored for `key`, if a sound entry holds exactly this source; a hit refreshes the
  // entry's age. A damaged entry counts as rejected and is removed.
  std::optional<std::vector<char>> load(const ir::Hash128& key, std::string_view source,
                                        NvrtcVersion version, int arch);
  // Writes an entry atomically (a temp file unique to this process and thread, then rename),
  // then evicts least recently used entries past the bound.
  void store(const ir::Hash128& key, std::string_view source, const std::vector<char>& cubin,
             NvrtcVersion version, int arch);
  // Removes an entry the driver refused to load.
  void reject(const ir::Hash128& key, NvrtcVersion version, int arch);

  bool usable() const { return usable_; }
  const DiskCacheConfig& config() const { return config_; }
  DiskCacheCounters& counters() { return counters_; }

  // Every entry under the root (all formats, NVRTC and cuBLASLt versions and arches, kernels and
  // algorithms); an entry's bytes include the .cu saved beside it.
  std::vector<DiskCacheEntry> entries() const;
  // Deletes least recently used entries until the total is at most max_bytes; returns how many.
  // Both this and clear() also delete temp files a killed writer left over an hour ago.
  std::size_t prune(std::uint64_t max_bytes);
  // Deletes every entry; returns how many.
  std::size_t clear();

 private:
  std::filesystem::path entry_path(const ir::Hash128& key, NvrtcVersion version, int arch) const;
  void disable(const std::string& why);
  std::size_t prune_locked(std::uint64_t max_bytes);

  DiskCacheConfig config_;
  std::atomic<bool> usable_{false};  // written when compiles on several threads fail at once
  std::atomic<bool> warned_{false};  // the one warning has been printed
  std::mutex mutex_;                 // guards the running total and eviction
  std::optional<std::uint64_t> total_bytes_;
  DiskCacheCounters counters_;
};

// The process's disk cache (configured from the environment on first use).
DiskCache& disk_cache();

}  // namespace lazy::jit
