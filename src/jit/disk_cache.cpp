#include "jit/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <thread>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ir/debug.h"
#include "ir/settings.h"

namespace lazy::jit {

namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'L', 'Z', 'K', 'C', 'A', 'C', 'H', 'E'};
constexpr const char* kEntryExtension = ".lzk";
constexpr const char* kSourceExtension = ".cu";
// Eviction goes below the bound by this fraction, so that a full cache does not prune on every
// write.
constexpr double kPruneTarget = 0.9;

// The entry header, written and read field by field as little-endian 64-bit words after the magic.
struct Header {
  std::uint64_t format = kDiskCacheFormat;
  std::uint64_t key_lo = 0;
  std::uint64_t key_hi = 0;
  std::uint64_t source_size = 0;
  std::uint64_t payload_size = 0;
  std::uint64_t checksum = 0;  // XXH3-64 of source and payload
};
constexpr std::size_t kHeaderBytes = sizeof(kMagic) + 6 * sizeof(std::uint64_t);

std::uint64_t checksum_of(std::string_view source, const char* payload, std::size_t size) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, source.data(), source.size());
  XXH3_64bits_update(state, payload, size);
  std::uint64_t sum = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return sum;
}

// mkdir -p, each directory it creates private to the user.
bool make_private_directories(const fs::path& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) return true;
  if (!path.has_parent_path() || path.parent_path() == path) return false;
  if (!make_private_directories(path.parent_path())) return false;
  return ::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST;
}

// Writes `parts` to `path` through a temp file in the same directory, named uniquely across
// processes and threads, then a rename: readers see the old entry or the whole new one.
bool write_atomically(const fs::path& path, std::initializer_list<std::string_view> parts,
                      int* error) {
  static std::atomic<std::uint64_t> counter{0};
  std::random_device random;
  std::string name = ".tmp-" + std::to_string(::getpid()) + "-" +
                     std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) +
                     "-" + std::to_string(counter++) + "-" + std::to_string(random());
  fs::path temp = path.parent_path() / name;
  int fd = ::open(temp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = errno;
    return false;
  }
  bool ok = true;
  for (std::string_view part : parts) {
    std::size_t done = 0;
    while (ok && done < part.size()) {
      ssize_t n = ::write(fd, part.data() + done, part.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        *error = n < 0 ? errno : ENOSPC;
        ok = false;
      } else {
        done += std::size_t(n);
      }
    }
  }
  if (::close(fd) != 0 && ok) {
    *error = errno;
    ok = false;
  }
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
    *error = errno;
    ok = false;
  }
  if (!ok) ::unlink(temp.c_str());
  return ok;
}

void put_word(std::string& out, std::uint64_t word) {
  for (int i = 0; i < 8; ++i) out.push_back(char((word >> (8 * i)) & 0xff));
}
std::uint64_t get_word(const char* in) {
  std::uint64_t word = 0;
  for (int i = 0; i < 8; ++i) word |= std::uint64_t(static_cast<unsigned char>(in[i])) << (8 * i);
  return word;
}

// The .cu an entry may have beside it (LAZY_CACHE_SAVE_SOURCE): it goes with its entry.
fs::path source_beside(fs::path entry) {
  return entry.replace_extension(kSourceExtension);
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
  } else {
    config.enabled = false;
  }
  config.max_bytes = std::uint64_t(ir::integer_setting(ir::Setting::cache_max_mb)) << 20;
  if (!config.root.empty()) {
    std::error_code ignored;
    config.root = fs::absolute(config.root, ignored);  // a relative LAZY_CACHE_DIR works too
  }
  config.save_source = ir::on_off_setting(ir::Setting::cache_save_source);
  return config;
}

DiskCache::DiskCache(DiskCacheConfig config) : config_(std::move(config)) {
  if (!config_.enabled) return;
  if (!make_private_directories(config_.root)) {
    disable(std::string("cannot be created: ") + std::strerror(errno));
    return;
  }
  if (!trusted(config_.root, true)) {
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
               config_.root.c_str(), why.c_str());
}

// Code the process will run: only from files the user owns and others cannot change.
bool DiskCache::trusted(const fs::path& path, bool directory) const {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) return false;
  if (directory ? !S_ISDIR(info.st_mode) : !S_ISREG(info.st_mode)) return false;
  return info.st_uid == ::geteuid() && (info.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

fs::path DiskCache::entry_directory(const fs::path& root, NvrtcVersion version, int arch) {
  return root / ("v" + std::to_string(kDiskCacheFormat)) /
         ("nvrtc-" + std::to_string(version.major) + "." + std::to_string(version.minor)) /
         ("sm_" + std::to_string(arch));
}

fs::path DiskCache::entry_path(const ir::Hash128& key, NvrtcVersion version, int arch) const {
  std::string hex = key.to_hex();
  return entry_directory(config_.root, version, arch) / hex.substr(0, 2) / (hex + kEntryExtension);
}

std::optional<std::vector<char>> DiskCache::load(const ir::Hash128& key, std::string_view source,
                                                 NvrtcVersion version, int arch) {
  if (!usable_) return std::nullopt;
  const fs::path path = entry_path(key, version, arch);
  std::ifstream file(path, std::ios::binary);
  if (!file) {
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
  if (!trusted(path, false)) {
    counters_.rejected++;  // not ours to delete: leave it, compile
    if (ir::debug_level() >= 1) {
      ir::debug_print("lazyfuse: cache entry " + path.string() +
                      " is not owned by this user or is writable by others; ignored");
    }
    return std::nullopt;
  }
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    return reject_entry("has no valid header");
  }
  const char* words = bytes.data() + sizeof kMagic;
  Header header{get_word(words),      get_word(words + 8),  get_word(words + 16),
                get_word(words + 24), get_word(words + 32), get_word(words + 40)};
  if (header.format != kDiskCacheFormat || header.key_lo != key.lo || header.key_hi != key.hi) {
    return reject_entry("belongs to another key or format");
  }
  if (header.source_size > bytes.size() || header.payload_size > bytes.size() ||
      kHeaderBytes + header.source_size + header.payload_size != bytes.size()) {
    return reject_entry("is truncated or has the wrong size");
  }
  std::string_view stored_source(bytes.data() + kHeaderBytes, header.source_size);
  const char* payload = bytes.data() + kHeaderBytes + header.source_size;
  if (checksum_of(stored_source, payload, header.payload_size) != header.checksum) {
    return reject_entry("fails its checksum");
  }
  if (stored_source != source) return reject_entry("holds another source (a key collision)");
  counters_.hits++;
  std::error_code ignored;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ignored);  // its age, for eviction
  return std::vector<char>(payload, payload + header.payload_size);
}

void DiskCache::store(const ir::Hash128& key, std::string_view source,
                      const std::vector<char>& cubin, NvrtcVersion version, int arch) {
  if (!usable_) return;
  const fs::path path = entry_path(key, version, arch);
  if (!make_private_directories(path.parent_path())) {
    disable(std::string("cannot hold a new directory: ") + std::strerror(errno));
    return;
  }
  std::string header(kMagic, sizeof kMagic);
  put_word(header, kDiskCacheFormat);
  put_word(header, key.lo);
  put_word(header, key.hi);
  put_word(header, source.size());
  put_word(header, cubin.size());
  put_word(header, checksum_of(source, cubin.data(), cubin.size()));
  int error = 0;
  if (!write_atomically(path, {header, source, std::string_view(cubin.data(), cubin.size())},
                        &error)) {
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
  std::error_code error;
  if (config_.root.empty() || !fs::is_directory(config_.root, error)) return out;
  for (fs::recursive_directory_iterator it(config_.root, error), end; !error && it != end;
       it.increment(error)) {
    if (!it->is_regular_file(error) || it->path().extension() != kEntryExtension) continue;
    std::error_code info_error;
    std::uint64_t bytes = it->file_size(info_error);
    auto time = it->last_write_time(info_error);
    std::error_code no_source;
    std::uint64_t source_bytes = fs::file_size(source_beside(it->path()), no_source);
    if (!no_source) bytes += source_bytes;
    if (!info_error) out.push_back({it->path(), bytes, time});
  }
  return out;
}

std::size_t DiskCache::prune(std::uint64_t max_bytes) {
  std::lock_guard lock(mutex_);
  total_bytes_.reset();
  return prune_locked(max_bytes);
}

std::size_t DiskCache::prune_locked(std::uint64_t max_bytes) {
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
