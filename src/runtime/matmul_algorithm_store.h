// Autotuned cuBLASLt algorithms, kept for the process and on disk under the kernel cache's root,
// so that a program's next run with LAZY_AUTOTUNE=1 times nothing it timed before.
//
// Layout: <root>/v<format>/cublaslt-<version>/sm_<arch>/<key>.algo, written and read as
// jit/cache_files.h says: the text is the product's description (what the key was hashed from),
// the payload the cublasLtMatmulAlgo_t's bytes, which cuBLASLt documents as serializable for
// the same library version. Another cuBLASLt or arch reads another directory; an unsound entry
// is a miss and is removed. LAZY_CACHE=0 keeps algorithms in memory only.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string_view>

#include "ir/hash.h"

namespace lazy::runtime {

// Which cuBLASLt and GPU architecture an algorithm was timed with.
struct AlgorithmScope {
  std::size_t cublaslt_version;
  int arch;
};

struct StoredAlgorithm {
  cublasLtMatmulAlgo_t algo;
  bool from_disk;  // read from an earlier run's entry, not timed in this process
};

// The algorithm kept for `key` whose description is exactly `description`, from memory, else from
// disk. Thread-safe.
std::optional<StoredAlgorithm> find_matmul_algorithm(const ir::Hash128& key,
                                                     std::string_view description,
                                                     AlgorithmScope scope);

// Keeps `algo` in memory and writes its entry atomically (a failed write is noted at
// LAZY_DEBUG=1; the algorithm is then only timed again by the next run). Thread-safe.
void store_matmul_algorithm(const ir::Hash128& key, std::string_view description,
                            const cublasLtMatmulAlgo_t& algo, AlgorithmScope scope);

// Drops an algorithm cuBLASLt no longer accepts, from memory and disk.
void forget_matmul_algorithm(const ir::Hash128& key, AlgorithmScope scope);

// Where the entry for `key` lives under the cache root `root`.
std::filesystem::path matmul_algorithm_path(const std::filesystem::path& root,
                                            const ir::Hash128& key, AlgorithmScope scope);

}  // namespace lazy::runtime
