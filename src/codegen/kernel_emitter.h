// A region of the partition as one CUDA kernel: its source, filled from
// nvrtc_templates/pointwise_skeleton.cuh (or reduction_skeleton.cuh or
// column_reduction_skeleton.cuh for a reduction region), and where each of its arguments comes
// from at launch.
// Sizes, strides and scalars are arguments, so one compiled kernel serves every shape that
// walks its iteration space the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fuse/partition.h"
#include "ir/hash.h"

namespace lazy::codegen {

// Where one 8-byte kernel argument comes from when a plan is launched.
struct ArgSource {
  enum class Kind : std::uint8_t {
    constant,          // `value` itself: a size, stride, offset or division constant
    external_pointer,  // the device address of external input `value` (a slot)
    root_pointer,      // the memory of root `value` (a graph index) written in this sync
    copy_pointer,      // the dense copy of external `value` written in this sync
    scalar_float,      // Scalar node `value` (a graph index), as f32 bits
    scalar_int,        // Scalar node `value`, as a long long
    index_site,        // the number ir::register_index_site gives Gather or scatter node `value`
    index_faults,      // where the device's kernels report a bad index (runtime/index_faults.h)
    scratch,           // `value` bytes of device memory the kernel uses while it runs
    launch_index,      // which of the kernel's launches this is (GeneratedKernel::launches)
  };
  Kind kind;
  std::uint64_t value;
};

// The argument naming the tensor load term `load` reads: an input, the dense copy an earlier
// region made of it, or an earlier region's root.
inline ArgSource load_pointer(const fuse::Term& load) {
  const ArgSource::Kind kind = load.from_copy  ? ArgSource::Kind::copy_pointer
                               : load.external ? ArgSource::Kind::external_pointer
                                               : ArgSource::Kind::root_pointer;
  return {kind, load.source};
}

struct CodegenOptions {
  bool fast_math = false;  // hardware approximations (LAZY_FAST_MATH)
  // The kernel takes as arguments the sizes it would otherwise compile in (a row kernel's row
  // length and threads per row, a skinny product's K, N and leading dimensions, every size and
  // offset of a kernel of several concatenations), so one kernel serves every size
  // (runtime/size_variants.h chooses).
  bool sizes_at_run_time = false;
};

struct GeneratedKernel {
  std::string name;    // what it computes: lz_add_mul_tanh_f32_<hash>
  std::string source;  // complete CUDA C++; includes the embedded templates by name
  // ir::hash_bytes of `source` where it is known already (a cached text's): the kernel cache's
  // key starts from it, and hashing the source again was a twentieth of a plan miss.
  std::optional<ir::Hash128> source_hash;
  std::vector<std::string> nvrtc_options;  // beyond the arch and language standard
  std::vector<ArgSource> args;
  std::int64_t numel;  // size of the iteration space
  // Elements the kernel writes per output: numel, or a reduction's results (which it writes even
  // when it folds nothing: a sum over an empty axis is 0). Nothing to write, no launch.
  std::int64_t written;
  int vector_width;  // elements a thread takes per step
  // The grid: enough groups for every element, one block per result, or a column reduction's tiles.
  std::int64_t blocks;
  int threads;  // threads per block
  // Launches queued in order, each told its number (a sort's passes); they share the scratch.
  int launches = 1;
};

// Threads per block: 8 warps, enough to hide memory latency with the 16-byte accesses each thread
// of a pointwise kernel issues, small enough for many resident blocks per SM (a reduction's block
// folds one result).
inline constexpr int kThreadsPerBlock = 256;

// A pointwise region's kernel, or a reduction region's (region.reduction set: a column kernel
// when its folded elements lie outside the kept ones in memory, else one block per result), or a
// product's that skinny_product (skinny_matmul.h) accepts.
GeneratedKernel generate_kernel(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                                std::span<const ir::NodePtr> externals,
                                const CodegenOptions& options = {});

}  // namespace lazy::codegen
