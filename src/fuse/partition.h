// The partitioner: cuts a pending graph into regions, each of which becomes one kernel.
//
// A region is a set of roots (nodes written to memory) that share an iteration space; its kernel
// computes every root from loads, scalars and generators, inlining all pointwise and view work in
// between. A partition is a plain value, so tests can inspect it and LAZY_DEBUG=2 can print it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fuse/graph.h"
#include "ir/layout.h"
#include "ir/node.h"

namespace lazy::fuse {

// Why a node is written to memory instead of being inlined into its consumers.
enum class CutReason : std::uint8_t {
  live_output,          // a handle holds it
  base_of_live_view,    // a held view reads it: written so the view shares its memory
  reshape_not_strided,  // a reshape no strides can express reads it: written densely first
  fusion_disabled,      // LAZY_FUSION=0: every op is its own kernel
  kernel_size_limit,    // the chain reading it is too long for one kernel
  reduction,            // a reduction's result is written, and read back by its consumers
};

// Longest chain of ops one kernel computes before a value is written and read back: long enough
// for any real pointwise chain (Inductor stops at 64 nodes), short enough that NVRTC compiles
// the kernel quickly and the partitioner's recursion stays shallow.
inline constexpr int kMaxFusedDepth = 128;
// Outputs of one kernel: each costs arguments and registers; more go to another kernel over the
// same iteration space.
inline constexpr int kMaxOutputsPerKernel = 16;
std::string_view cut_reason_name(CutReason reason);

// A value a kernel writes: a pending node, or a dense copy of an external input (which a
// reshape that no strides express needs).
struct Root {
  std::uint32_t node;  // pending index, or external slot when `external_copy`
  CutReason reason;
  bool external_copy = false;
  // In a row region: one value per row (a reduction, or pointwise work on reduced values),
  // written at out[row]; otherwise one value per element of the iteration space.
  bool per_row = false;
};

// One step of a region's computation, in an order where operands come first.
struct Term {
  enum class Kind : std::uint8_t {
    load,       // an element of a tensor in memory: an external input or an earlier region's root
    scalar,     // a Scalar node's value: a kernel argument
    generator,  // Arange, RandUniform, RandNormal at an index
    op,         // a pointwise op on operand terms
    reduced,    // a row region's reduction `source`, the same for every element of a row
  };
  Kind kind;
  // load: pending index of the root read, or external slot (`external`); else the pending index.
  std::uint32_t source;
  bool external = false;
  bool from_copy = false;  // load of the dense copy an earlier region made of external `source`
  // load: iteration index -> element of the source's storage. generator: iteration index ->
  // the generator's own linear index. A rank-0 layout is one element for every iteration.
  ir::Layout layout;
  std::array<std::int32_t, 3> operands{-1, -1, -1};
  int n_operands = 0;
};

// What a reduction region folds: its iteration space is the reduction's input with the folded
// axes moved last, so element i belongs to result i / extent.
struct ReductionInfo {
  std::uint32_t node;    // pending index of the reduction
  std::int64_t results;  // elements of the reduction's result
  std::int64_t extent;   // elements folded into each
  ir::NodePtr permute;   // the view that moves the folded axes last (null if they are)
};

// A row region: reductions over the trailing axes of its iteration space, fused with the
// pointwise work before, between and after them, so that reduce-then-broadcast (softmax, the
// norms) is one kernel. Every load's layout is over the iteration space; those of per-row values
// have stride 0 along the folded axes.
struct RowInfo {
  std::int64_t rows;    // elements of the kept (leading) axes
  std::int64_t extent;  // elements of the folded (trailing) axes
  int folded_axes;
  std::vector<std::uint32_t> reductions;      // pending indices, in the order they fold
  std::vector<std::int32_t> reduction_terms;  // the term of each one's folded value
};

struct Region {
  // The iteration space: every root has this shape (a reduction region: its permuted input; a
  // row region: its reductions' input, per-row roots have its kept axes).
  Shape shape;
  std::optional<ReductionInfo> reduction;
  std::optional<RowInfo> row;
  std::vector<Root> roots;
  std::vector<Term> terms;
  std::vector<std::int32_t> root_terms;  // the term computing each root
};

struct Partition {
  // The graph the partition is of: the recorded one after split_reductions. Node indices below
  // (roots, terms, regions' reductions) are its indices.
  Graph graph;
  std::vector<Region> regions;  // in execution order: a region reads only earlier ones' roots
  // For each node of the graph: the region whose kernel writes it, or -1.
  std::vector<std::int32_t> region_of;
  // Live nodes that are views: their data is a view of another node's (or an input's) memory.
  std::vector<std::uint32_t> live_views;
  // Live Scalar nodes (0-d full() tensors): written from the host, no kernel.
  std::vector<std::uint32_t> live_scalars;

  // The graph's rewrites, then regions, roots and why each was cut, one line each
  // (LAZY_DEBUG=2).
  std::string describe() const;
};

struct PartitionOptions {
  bool fusion = true;  // LAZY_FUSION=0 turns it off
};

// `pending` in trace order (inputs before consumers); `live[i]`: a handle holds pending[i].
// Splits reductions first (fuse/split_reductions.h), then cuts the graph that gives.
Partition partition(std::span<const ir::NodePtr> pending, const std::vector<bool>& live,
                    std::span<const ir::NodePtr> externals, PartitionOptions options);

// Applies the views between a consumer and a tensor, innermost first, to the tensor's layout.
// `views` lists the view nodes from the consumer down. Nothing when a reshape on the way cannot
// be expressed with strides; *failed_view is then that reshape.
std::optional<ir::Layout> compose_views(const ir::Layout& base,
                                        std::span<const ir::Node* const> views,
                                        const ir::Node** failed_view);

}  // namespace lazy::fuse
