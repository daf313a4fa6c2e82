// What a top-k region's kernel fills in beyond what every kernel has: the order key of each
// element, each root's store (the values or positions), and for a sort its launch and scratch.
// A top-k keeping at most kMaxSelected selects by threshold (nvrtc_templates/topk_skeleton.cuh);
// one keeping more, a sort among them, sorts whole rows: in shared memory up to a tile
// (sort_skeleton.cuh), else by radix passes through scratch (radix_sort_skeleton.cuh): for each
// chunk of rows whose buffers fit the scratch, a launch clearing counts, one counting digits, and
// one a pass.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "codegen/kernel_builder.h"
#include "codegen/templates.h"
#include "fuse/partition.h"

namespace lazy::codegen {

// topk_skeleton.cuh's chunk: the candidates it keeps fit its shared memory with a chunk more.
inline constexpr std::int64_t kMaxSelected = 1024;
// sort_skeleton.cuh's tile: rows up to this long sort in shared memory, with no scratch. Longer
// rows are radix sorted, in tiles of 4096 elements (2048 for 8-byte keys).
inline constexpr std::int64_t kSortTile = 2048;
// A radix pass's digit bits: lz_order.cuh's kDigitBits, which radix_sort_skeleton.cuh checks.
inline constexpr int kRadixDigitBits = 8;
// The scratch a sort's chunk of rows takes at most: more rows at once would not run faster.
inline constexpr std::int64_t kSortScratchBytes = std::int64_t(512) << 20;

// The skeleton a top-k region fills.
const char* top_k_skeleton(const fuse::TopKInfo& top_k);
// Its blocks: one per row, or for a radix sort one per tile of a chunk's rows.
std::int64_t top_k_blocks(const fuse::TopKInfo& top_k);
// Its launches: a radix sort takes two and one a pass for each chunk of rows.
int top_k_launches(const fuse::TopKInfo& top_k);
// Declares the arguments its skeleton reads beyond every kernel's: k, and a sort's scratch.
void declare_top_k_args(const fuse::TopKInfo& top_k, KernelBuilder& builder);

// The top-k skeleton's own $-names: `element` computes the input's element i (offsets and
// terms), `value` names it, of dtype `value_dtype`.
Substitutions top_k_substitutions(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                                  std::string element, DType value_dtype, const std::string& value);

}  // namespace lazy::codegen
