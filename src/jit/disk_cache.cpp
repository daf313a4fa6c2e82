#include "jit/disk_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <absl/functional/function_ref.h>

#include "ir/debug.h"
#include "ir/settings.h"
#include "jit/cache_files.h"

namespace lazy::jit {

namespace {

namespace fs = std::filesystem;

constexpr const char* kSourceExtension = ".cu";
// Eviction goes below the bound by this fraction, so that a full cache does not prune on every
// write.
constexpr double kPruneTarget = 0.9;

// The .cu an entry may have beside it (LAZY_CACHE_SAVE_SOURCE): it goes with its entry.
fs::path source_beside(fs::path entry) {
  return entry.replace_extension(kSourceExtension);
}

// `file`, an entry, with its size (its source's too) and when it was last used.
void add_entry(const fs::directory_entry& file, std::vector<DiskCacheEntry>& out) {
  std::error_code info_error;
  std::uint64_t bytes = file.file_size(info_error);
  const auto time = file.last_write_time(info_error);
  std::error_code no_source;
  const std::uint64_t source_bytes = fs::file_size(source_beside(file.path()), no_source);
  if (!no_source) bytes += source_bytes;
  if (!info_error) out.push_back({file.path(), bytes, time});
}

// A temp file this old was left by a process that died while writing it (a write takes
// milliseconds); younger ones may be another process's write in progress.
constexpr auto kAbandonedTempAge = std::chrono::hours(1);

// Calls `visit` for each file in the format directories (v<N>) under `root`: only they hold
// entries, so a root shared with other files (LAZY_CACHE_DIR=$HOME) loses none of them. A folder
// it may not read is skipped: stopping there hid every later entry, from the listing and from
// the size bound's pruning.
void for_each_file_in_formats(const fs::path& root,
                              absl::FunctionRef<void(const fs::directory_entry&)> visit) {
  std::error_code error;
  if (root.empty() || !fs::is_directory(root, error)) return;
  std::vector<fs::path> formats;
  for (fs::directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    const bool format_name = name.size() > 1 && name[0] == 'v' &&
                             name.find_first_not_of("0123456789", 1) == std::string::npos;
    if (format_name && it->is_directory(error) && !it->is_symlink(error))
      formats.push_back(it->path());
  }
  for (const fs::path& format : formats) {
    for (fs::recursive_directory_iterator
             it(format, fs::directory_options::skip_permission_denied, error),
         end;
         !error && it != end; it.increment(error)) {
      if (it->is_regular_file(error) && !it->is_symlink(error)) visit(*it);
    }
  }
}

void remove_abandoned_temp_files(const fs::path& root) {
  const auto now = fs::file_time_type::clock::now();
  for_each_file_in_formats(root, [&](const fs::directory_entry& file) {
    std::error_code error;
    if (!file.path().filename().string().starts_with(kTempFilePrefix)) return;
    const auto written = file.last_write_time(error);
    if (!error && now - written > kAbandonedTempAge) fs::remove(file.path(), error);
  });
}

void remove_entry(const fs::path& entry, std::error_code& error) {
  fs::remove(entry, error);
  std::error_code ignored;
  fs::remove(source_beside(entry), ignored);
}

}  // namespace

DiskCacheConfig disk_cache_config_from_env() {
  DiskCacheConfig config;
  config.enabled = ir::on_off_setting(ir::Setting::cache);
  const char* xdg = ir::foreign_variable(ir::ForeignVariable::xdg_cache_home);
  const char* home = ir::foreign_variable(ir::ForeignVariable::home);
  if (std::optional<std::string> dir = ir::text_setting(ir::Setting::cache_dir)) {
    config.root = *dir;
  } else if (xdg != nullptr && *xdg != '\0') {
    config.root = fs::path(xdg) / "lazyfuse";
  } else if (home != nullptr && *home != '\0') {
    config.root = fs::path(home) / ".cache" / "lazyfuse";
  }  // else no root: the cache says why it is off
  config.max_bytes = std::uint64_t(ir::integer_setting(ir::Setting::cache_max_mb)) << 20;
  if (!config.root.empty()) {
    std::error_code ignored;
    config.root = fs::absolute(config.root, ignored);  // a relative LAZY_CACHE_DIR works too
    // Through a symbolic link to the directory it names, which is what the checks must see (a
    // trailing slash did that already).
    if (fs::path real = fs::weakly_canonical(config.root, ignored); !ignored) config.root = real;
  }
  config.save_source = ir::on_off_setting(ir::Setting::cache_save_source);
  return config;
}

DiskCache::DiskCache(DiskCacheConfig config) : config_(std::move(config)) {
  if (!config_.enabled) return;
  if (config_.root.empty()) {
    disable("is not set: neither LAZY_CACHE_DIR, XDG_CACHE_HOME nor HOME is");
    return;
  }
  std::error_code error;
  if (fs::exists(config_.root, error) && !fs::is_directory(config_.root, error)) {
    disable("is not a directory");
    return;
  }
  if (!make_private_directories(config_.root)) {
    disable(std::string("cannot be created: ") + std::strerror(errno));
    return;
  }
  if (!owned_privately(config_.root, true)) {
    disable("is owned by another user or writable by others, so its entries cannot be trusted");
    return;
  }
  if (::access(config_.root.c_str(), W_OK) != 0) {
    disable(std::string("is not writable: ") + std::strerror(errno));
    return;
  }
  usable_ = true;
}

void DiskCache::disable(const std::string& why) {
  usable_ = false;
  if (warned_.exchange(true)) return;  // one warning, however many threads found the problem
  std::fprintf(stderr,
               "lazyfuse: warning: the kernel cache directory %s %s; compiled kernels are kept in "
               "memory only (set LAZY_CACHE_DIR to another directory, or LAZY_CACHE=0 to silence "
               "this)\n",
               config_.root.empty() ? "(none)" : config_.root.c_str(), why.c_str());
}

fs::path DiskCache::entry_directory(const fs::path& root, NvrtcVersion version, int arch) {
  return root / ("v" + std::to_string(kDiskCacheFormat)) /
         ("nvrtc-" + std::to_string(version.major) + "." + std::to_string(version.minor)) /
         ("sm_" + std::to_string(arch));
}

fs::path DiskCache::entry_path(const ir::Hash128& key, NvrtcVersion version, int arch) const {
  std::string hex = key.to_hex();
  return entry_directory(config_.root, version, arch) / hex.substr(0, 2) /
         (hex + std::string(kKernelEntryExtension));
}

std::optional<std::vector<char>> DiskCache::load(const ir::Hash128& key, std::string_view source,
                                                 NvrtcVersion version, int arch) {
  if (!usable_) return std::nullopt;
  const fs::path path = entry_path(key, version, arch);
  std::error_code missing;
  if (!fs::exists(fs::symlink_status(path, missing))) {
    counters_.misses++;
    return std::nullopt;
  }
  auto reject_entry = [&](const char* why) -> std::optional<std::vector<char>> {
    counters_.rejected++;
    if (ir::debug_level() >= 1) {
      ir::debug_print("lazyfuse: cache entry " + path.string() + " " + why + "; recompiling");
    }
    std::error_code ignored;
    remove_entry(path, ignored);
    return std::nullopt;
  };
  if (!owned_privately(path, false)) {
    counters_.rejected++;  // not ours to delete: leave it, compile
    if (ir::debug_level() >= 1) {
      ir::debug_print("lazyfuse: cache entry " + path.string() +
                      " is not owned by this user or is writable by others; ignored");
    }
    return std::nullopt;
  }
  // Opened only once known to be a regular file: a FIFO at the path would block the open.
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    counters_.misses++;
    return std::nullopt;
  }
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const CacheEntryParts entry = parse_cache_entry(bytes, key);
  if (entry.rejected != nullptr) return reject_entry(entry.rejected);
  if (entry.text != source) return reject_entry("holds another source (a key collision)");
  counters_.hits++;
  std::error_code ignored;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ignored);  // its age, for eviction
  return std::vector<char>(entry.payload.begin(), entry.payload.end());
}

void DiskCache::store(const ir::Hash128& key, std::string_view source,
                      const std::vector<char>& cubin, NvrtcVersion version, int arch) {
  if (!usable_ || config_.max_bytes == 0) return;  // a bound of 0 keeps nothing
  const fs::path path = entry_path(key, version, arch);
  if (!make_private_directories(path.parent_path())) {
    disable(std::string("cannot hold a new directory: ") + std::strerror(errno));
    return;
  }
  // Something else at the entry's path (a directory, a FIFO) is not ours to replace: this entry
  // stays in memory, the others are still written.
  std::error_code status_error;
  const fs::file_status status = fs::symlink_status(path, status_error);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    counters_.rejected++;
    return;
  }
  const std::string_view payload(cubin.data(), cubin.size());
  const std::string header = cache_entry_header(key, source, payload);
  int error = 0;
  if (!write_atomically(path, {header, source, payload}, &error)) {
    disable(std::string("cannot be written: ") + std::strerror(error));
    return;
  }
  counters_.writes++;
  std::uint64_t written = header.size() + source.size() + cubin.size();
  if (config_.save_source) {
    if (write_atomically(source_beside(path), {source}, &error)) written += source.size();
  }
  std::lock_guard lock(mutex_);
  if (!total_bytes_) {
    std::uint64_t total = 0;
    for (const DiskCacheEntry& entry : entries()) total += entry.bytes;
    total_bytes_ = total;
  } else {
    *total_bytes_ += written;
  }
  if (*total_bytes_ > config_.max_bytes) {
    total_bytes_.reset();  // recounted from the directory, which other processes share
    prune_locked(std::uint64_t(double(config_.max_bytes) * kPruneTarget));
  }
}

void DiskCache::reject(const ir::Hash128& key, NvrtcVersion version, int arch) {
  counters_.rejected++;
  std::error_code ignored;
  remove_entry(entry_path(key, version, arch), ignored);
}

std::vector<DiskCacheEntry> DiskCache::entries() const {
  std::vector<DiskCacheEntry> out;
  for_each_file_in_formats(config_.root, [&](const fs::directory_entry& file) {
    const fs::path extension = file.path().extension();
    if ((extension == kKernelEntryExtension || extension == kAlgorithmEntryExtension) &&
        is_cache_entry_file(file.path())) {
      add_entry(file, out);
    }
  });
  return out;
}

std::size_t DiskCache::prune(std::uint64_t max_bytes) {
  std::lock_guard lock(mutex_);
  total_bytes_.reset();
  return prune_locked(max_bytes);
}

std::size_t DiskCache::prune_locked(std::uint64_t max_bytes) {
  remove_abandoned_temp_files(config_.root);
  std::vector<DiskCacheEntry> all = entries();
  std::sort(all.begin(), all.end(), [](const DiskCacheEntry& a, const DiskCacheEntry& b) {
    return a.last_used < b.last_used;
  });
  std::uint64_t total = 0;
  for (const DiskCacheEntry& entry : all) total += entry.bytes;
  std::size_t removed = 0;
  for (const DiskCacheEntry& entry : all) {
    if (total <= max_bytes) break;
    std::error_code error;
    remove_entry(entry.path, error);
    if (!error) {
      total -= entry.bytes;
      ++removed;
      counters_.evictions++;
    }
  }
  return removed;
}

std::size_t DiskCache::clear() {
  remove_abandoned_temp_files(config_.root);
  std::size_t removed = 0;
  for (const DiskCacheEntry& entry : entries()) {
    std::error_code error;
    remove_entry(entry.path, error);
    if (!error) ++removed;
  }
  std::lock_guard lock(mutex_);
  total_bytes_.reset();
  return removed;
}

DiskCache& disk_cache() {
  static DiskCache* cache = new DiskCache(disk_cache_config_from_env());  // used until exit
  return *cache;
}

}  // namespace lazy::jit
