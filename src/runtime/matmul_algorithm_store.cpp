#include "runtime/matmul_algorithm_store.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>

#include <absl/container/flat_hash_map.h>

#include "ir/debug.h"
#include "jit/cache_files.h"
#include "jit/disk_cache.h"

namespace lazy::runtime {
namespace {

namespace fs = std::filesystem;

struct KeptAlgorithm {
  std::string description;
  StoredAlgorithm stored;
};

// Algorithms found or timed in this process. Small (one entry per distinct product), so kept
// whole for the process, as plans keep their calls.
struct AlgorithmMemory {
  std::mutex mutex;
  absl::flat_hash_map<ir::Hash128, KeptAlgorithm> entries;
};

AlgorithmMemory& memory() {
  static auto* kept = new AlgorithmMemory;  // used until exit
  return *kept;
}

// The cache root when the kernel cache's directory is usable.
std::optional<fs::path> usable_root() {
  jit::DiskCache& cache = jit::disk_cache();
  if (!cache.usable()) return std::nullopt;
  return cache.config().root;
}

void debug_note(const fs::path& path, std::string_view what) {
  if (ir::debug_level() >= 1) {
    ir::debug_print("lazyfuse: cuBLASLt algorithm entry " + path.string() + " " +
                    std::string(what));
  }
}

std::optional<cublasLtMatmulAlgo_t> read_entry(const ir::Hash128& key, std::string_view description,
                                               AlgorithmScope scope) {
  const std::optional<fs::path> root = usable_root();
  if (!root) return std::nullopt;
  const fs::path path = matmul_algorithm_path(*root, key, scope);
  std::error_code missing;
  if (!fs::exists(fs::symlink_status(path, missing))) return std::nullopt;
  if (!jit::owned_privately(path, false)) {
    debug_note(path, "is not owned by this user or is writable by others; ignored");
    return std::nullopt;
  }
  // Opened only once known to be a regular file: a FIFO at the path would block the open.
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const jit::CacheEntryParts entry = jit::parse_cache_entry(bytes, key);
  const char* rejected = entry.rejected;
  if (rejected == nullptr && entry.text != description) {
    rejected = "holds another product (a key collision)";
  }
  if (rejected == nullptr && entry.payload.size() != sizeof(cublasLtMatmulAlgo_t)) {
    rejected = "holds an algorithm of another size";
  }
  if (rejected != nullptr) {
    debug_note(path, std::string(rejected) + "; timing again");
    std::error_code ignored;
    fs::remove(path, ignored);
    return std::nullopt;
  }
  cublasLtMatmulAlgo_t algo;
  std::memcpy(&algo, entry.payload.data(), sizeof algo);
  std::error_code ignored;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ignored);  // its age, for eviction
  return algo;
}

void write_entry(const ir::Hash128& key, std::string_view description,
                 const cublasLtMatmulAlgo_t& algo, AlgorithmScope scope) {
  const std::optional<fs::path> root = usable_root();
  if (!root) return;
  const fs::path path = matmul_algorithm_path(*root, key, scope);
  const std::string_view payload(reinterpret_cast<const char*>(&algo), sizeof algo);
  const std::string header = jit::cache_entry_header(key, description, payload);
  int error = 0;
  if (!jit::make_private_directories(path.parent_path())) error = errno;
  if (error != 0 || !jit::write_atomically(path, {header, description, payload}, &error)) {
    // The kernel cache warns about its directory; an algorithm lost here is only timed again.
    debug_note(path, std::string("could not be written: ") + std::strerror(error));
  }
}

}  // namespace

fs::path matmul_algorithm_path(const fs::path& root, const ir::Hash128& key, AlgorithmScope scope) {
  return root / ("v" + std::to_string(jit::kDiskCacheFormat)) /
         ("cublaslt-" + std::to_string(scope.cublaslt_version)) /
         ("sm_" + std::to_string(scope.arch)) /
         (key.to_hex() + std::string(jit::kAlgorithmEntryExtension));
}

std::optional<StoredAlgorithm> find_matmul_algorithm(const ir::Hash128& key,
                                                     std::string_view description,
                                                     AlgorithmScope scope) {
  AlgorithmMemory& kept = memory();
  {
    std::lock_guard lock(kept.mutex);
    if (auto it = kept.entries.find(key);
        it != kept.entries.end() && it->second.description == description) {
      return it->second.stored;
    }
  }
  const std::optional<cublasLtMatmulAlgo_t> algo = read_entry(key, description, scope);
  if (!algo) return std::nullopt;
  const StoredAlgorithm stored{*algo, true};
  std::lock_guard lock(kept.mutex);
  kept.entries.insert_or_assign(key, KeptAlgorithm{std::string(description), stored});
  return stored;
}

void store_matmul_algorithm(const ir::Hash128& key, std::string_view description,
                            const cublasLtMatmulAlgo_t& algo, AlgorithmScope scope) {
  {
    AlgorithmMemory& kept = memory();
    std::lock_guard lock(kept.mutex);
    kept.entries.insert_or_assign(key, KeptAlgorithm{std::string(description), {algo, false}});
  }
  write_entry(key, description, algo, scope);
}

void forget_matmul_algorithm(const ir::Hash128& key, AlgorithmScope scope) {
  {
    AlgorithmMemory& kept = memory();
    std::lock_guard lock(kept.mutex);
    kept.entries.erase(key);
  }
  if (const std::optional<fs::path> root = usable_root()) {
    std::error_code ignored;
    fs::remove(matmul_algorithm_path(*root, key, scope), ignored);
  }
}

}  // namespace lazy::runtime
