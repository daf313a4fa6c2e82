// A row region (fuse::RowInfo) as one CUDA kernel: reduce-then-broadcast in one pass over
// memory. Each row (the kept axes) is folded by a group of threads: the row's loads are held in
// registers when they fit (read from memory once, however many reductions fold them), else each
// reduction loops over the row again. Reductions combine with warp shuffles (and shared memory
// across warps) in a fixed order, so results are the same bits on every run.
#pragma once

#include <optional>
#include <span>

#include <absl/functional/function_ref.h>

#include "codegen/kernel_emitter.h"
#include "codegen/row_launch.h"
#include "fuse/partition.h"

namespace lazy::codegen {

GeneratedKernel generate_row_kernel(const fuse::Region& region,
                                    std::span<const ir::NodePtr> pending,
                                    std::span<const ir::NodePtr> externals,
                                    const CodegenOptions& options);

// The same, when `wanted` says so given the key of its structure (kernel_sources.h's
// row_text_keys: what the kernels of every row length share; nullopt for a text not cached): a
// caller can count the structure's lengths before paying for the rest.
std::optional<GeneratedKernel> generate_row_kernel_if(
    const fuse::Region& region, std::span<const ir::NodePtr> pending,
    std::span<const ir::NodePtr> externals, const CodegenOptions& options,
    absl::FunctionRef<bool(const std::optional<ir::Hash128>& structure_key)> wanted);

}  // namespace lazy::codegen
