// A replay plan: everything a sync needs to run a graph it has seen before (same structure,
// shapes, dtypes, input layouts), so a replay does no partitioning, codegen or compiling.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <absl/container/inlined_vector.h>

#include "codegen/kernel_emitter.h"
#include "ir/layout.h"
#include "ir/matmul.h"
#include "jit/kernel_cache.h"
#include "runtime/device.h"
#include "runtime/eager_graphs.h"

namespace lazy::runtime {

// A value a kernel writes: a pending node, a node the partitioner's rewrite added, or a dense
// copy of an external input.
struct PlannedOutput {
  // Pending index, or external slot when `external_copy`. An added node's index is past the
  // pending nodes (see `added`).
  std::uint32_t node;
  bool external_copy;
  DType dtype;
  std::int64_t numel;
  // An added node's op, dtype, shape and source line (no inputs), for messages about its memory.
  ir::NodePtr added;
  // Plan index of a root this kernel reads for the last time whose memory the output takes
  // instead of new memory (runtime/buffer_reuse.h): not poisoned, since it holds the input.
  std::optional<std::uint32_t> reuses;
  // External slots of inputs this kernel reads for the last time, only at the element being
  // written: the output is written over the first that, at replay, nothing else holds and no
  // earlier output of the kernel took (runtime/in_place_update.h).
  absl::InlinedVector<std::uint32_t, 2> over_externals;
};

class MatmulCall;  // runtime/matmul_call.h

// A cuBLASLt call in place of a kernel: the kernel's args are the pointers of the product's
// inputs (a, b, then the epilogue's bias and residual), its outputs[0] the product.
struct PlannedMatmul {
  std::shared_ptr<MatmulCall> call;  // null when computing on the host
  ir::MatmulEpilogue epilogue;       // which inputs follow a and b
};

struct PlannedKernel {
  CUfunction function = nullptr;  // null when computing on the host
  std::string name;
  // Indices as in PlannedOutput; an added Scalar node's value is a constant argument.
  std::vector<codegen::ArgSource> args;
  std::vector<PlannedOutput> outputs;
  std::int64_t numel;  // elements each output holds; 0: nothing to launch
  unsigned grid;
  unsigned block;
  int launches = 1;          // queued in order, each with its number as the launch_index argument
  std::int64_t bytes_moved;  // the fewest bytes the kernel reads and writes (LAZY_DEBUG=3)
  // Outputs of earlier kernels nobody holds that no later kernel reads: freed (stream-ordered)
  // once this kernel is queued, so an unfused chain does not hold all its intermediates.
  std::vector<std::uint32_t> release_after;
  std::optional<PlannedMatmul> matmul;  // a library call, not a generated kernel
  bool computes_product = false;        // a generated kernel of a product (counted as a matmul)
};

// A held view: its data is a view of a kernel's output, an input's storage, or a scalar.
struct PlannedView {
  enum class Base : std::uint8_t { root, external, scalar };
  std::uint32_t node;
  Base base_kind;
  std::uint32_t base;  // plan index (root, scalar; see plan_indices.h) or external slot
  ir::Layout layout;
};

struct Plan {
  std::vector<PlannedKernel> kernels;
  std::vector<std::uint32_t> live_roots;  // held nodes written by kernels
  std::vector<PlannedView> live_views;
  std::vector<std::uint32_t> live_scalars;
  std::string partition_text;  // LAZY_DEBUG=2
  std::string kernel_origins;  // how many kernels came from memory, disk and NVRTC (LAZY_DEBUG)
  bool has_in_place_candidates = false;  // some output has `over_externals`
  mutable EagerGraph eager;  // the graph its eager syncs replay it with, once they repeat
};

}  // namespace lazy::runtime
