#include "codegen/top_k_kernel.h"

#include <algorithm>

#include "codegen/generated_names.h"
#include "codegen/op_expressions.h"
#include "codegen/text.h"
#include "ir/integer_math.h"

namespace lazy::codegen {

namespace {

bool sorts_rows(const fuse::TopKInfo& top_k) {
  return top_k.k > kMaxSelected;
}

bool radix_sorts(const fuse::TopKInfo& top_k) {
  return sorts_rows(top_k) && top_k.extent > kSortTile;
}

// The bytes of a radix sort's keys: an order key's bits that can differ.
int key_bytes(const fuse::TopKInfo& top_k) {
  return top_k.dtype == DType::i64 ? 8 : 4;
}

// The keys' lowest bit that tells keys apart: f16 and bf16 values widen to f32 with 13 and 16
// zero bits below their own (ones when negative, so equal wherever the bits above are).
int first_key_bit(const fuse::TopKInfo& top_k) {
  return top_k.dtype == DType::f16 ? 13 : top_k.dtype == DType::bf16 ? 16 : 0;
}

int radix_passes(const fuse::TopKInfo& top_k) {
  return int(ir::ceil_div(8 * key_bytes(top_k) - first_key_bit(top_k), kRadixDigitBits));
}

// A radix pass's tile, the elements a block ranks and moves at once, and the blocks an SM holds:
// 16 4-byte keys a thread (256 threads), staged with their positions in 32 KB of shared memory, at
// three blocks an SM (80 registers, 128 bytes spilled, still faster than two blocks); 8-byte keys
// 8 a thread at four (64 registers), where 16 would pass the 48 KB of static shared memory. Fewer
// tiles, fewer look-backs: on H200 2^27 f32 sorted in 7.37 ms against 8.65 at 2048 and four,
// [2048, 65536] in 7.04 against 7.66 (before the match-word ranking; docs/architecture.md).
int radix_tile(const fuse::TopKInfo& top_k) {
  return key_bytes(top_k) == 4 ? 4096 : 2048;
}
int radix_blocks_per_sm(const fuse::TopKInfo& top_k) {
  return key_bytes(top_k) == 4 ? 3 : 4;
}

std::int64_t radix_tiles(const fuse::TopKInfo& top_k) {
  return ir::ceil_div(top_k.extent, radix_tile(top_k));
}

// A radix sort's scratch for one row: two buffers of keys and 4-byte positions; each tile's
// look-back word per digit (8 bytes); the row's count of each digit in each pass; and the OR and
// AND of its keys. A chunk of rows adds a job counter per pass.
std::int64_t scratch_per_row(const fuse::TopKInfo& top_k) {
  const std::int64_t digits = std::int64_t(1) << kRadixDigitBits;
  return top_k.extent * 2 * (key_bytes(top_k) + 4) + radix_tiles(top_k) * digits * 8 +
         radix_passes(top_k) * digits * 4 + 2 * key_bytes(top_k);
}

// The rows a radix sort takes at once: those whose scratch fits kSortScratchBytes (at least one).
std::int64_t chunk_rows(const fuse::TopKInfo& top_k) {
  return std::clamp<std::int64_t>(kSortScratchBytes / scratch_per_row(top_k), 1,
                                  std::max<std::int64_t>(top_k.rows, 1));
}

}  // namespace

const char* top_k_skeleton(const fuse::TopKInfo& top_k) {
  return radix_sorts(top_k)  ? "radix_sort_skeleton.cuh"
         : sorts_rows(top_k) ? "sort_skeleton.cuh"
                             : "topk_skeleton.cuh";
}

std::int64_t top_k_blocks(const fuse::TopKInfo& top_k) {
  if (!radix_sorts(top_k)) return grid_blocks(top_k.rows, 1);
  return grid_blocks(chunk_rows(top_k) * radix_tiles(top_k), 1);
}

int top_k_launches(const fuse::TopKInfo& top_k) {
  if (!radix_sorts(top_k)) return 1;
  return int(ir::ceil_div(top_k.rows, chunk_rows(top_k))) * (radix_passes(top_k) + 2);
}

void declare_top_k_args(const fuse::TopKInfo& top_k, KernelBuilder& builder) {
  builder.constant("k", std::uint64_t(top_k.k));
  if (!radix_sorts(top_k)) return;
  builder.constant("chunk_rows", std::uint64_t(chunk_rows(top_k)));
  builder.scratch("scratch", std::uint64_t(chunk_rows(top_k) * scratch_per_row(top_k) +
                                           4 * radix_passes(top_k)));
  builder.launch_index("launch");
}

Substitutions top_k_substitutions(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                                  std::string element, DType value_dtype,
                                  const std::string& value) {
  const ir::Node& first = *pending[region.roots[0].node];
  const DType compute = first.compute_dtype;
  // Bool compares as an int; f16 and bf16 as the f32 they widen to exactly.
  const std::string acc = compute == DType::bool_ ? "int" : std::string(value_type(compute));
  std::string stores;
  for (std::size_t r = 0; r < region.roots.size(); ++r) {
    const ir::Node& node = *pending[region.roots[r].node];
    const std::string stored =
        node.op == ir::Op::TopKIndex
            ? std::string("at")
            : store_conversion(node.dtype, convert(compute, node.dtype, "value"));
    append(stores, "      ", output_name(r), "[o] = ", stored, ";\n");
  }
  if (!element.empty() && element.back() == '\n') element.pop_back();
  stores.pop_back();
  // The smallest are the largest of the complemented keys.
  const std::string complement = region.top_k->largest ? "" : "~";
  const std::int64_t tile = radix_sorts(*region.top_k) ? radix_tile(*region.top_k) : kSortTile;
  return {{"$ACC", acc},
          {"$ELEMENT", std::move(element)},
          // Ordered as stored: an f16 or bf16 value unrounded would order values that tie.
          {"$KEY", cat(complement, "lz_order_key((Acc)",
                       convert(value_dtype, compute, as_stored(value_dtype, value)), ")")},
          {"$FROM_KEY", cat(complement, "keys[j]")},
          {"$RADIX_KEY", key_bytes(*region.top_k) == 8 ? "unsigned long long" : "unsigned"},
          {"$FIRST_BIT", std::to_string(first_key_bit(*region.top_k))},
          {"$PASSES", std::to_string(radix_passes(*region.top_k))},
          {"$TILE", std::to_string(tile)},
          {"$BLOCKS_PER_SM", std::to_string(radix_blocks_per_sm(*region.top_k))},
          {"$STORES", std::move(stores)}};
}

}  // namespace lazy::codegen
