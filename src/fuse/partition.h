// The partitioner: cuts a pending graph into regions, each of which becomes one kernel.
//
// A region is a set of roots (nodes written to memory) that share an iteration space; its kernel
// computes every root from loads, scalars and generators, inlining all pointwise and view work in
// between. A partition is a plain value, so tests can inspect it and LAZY_DEBUG=2 can print it.
//
// partition() runs passes, each a function a test can call alone:
//   fold_matmul_epilogues (fuse/matmul_epilogues.h) graph -> graph: bias, residual, activation
//                                                into the product's epilogue
//   recompute_operands_read_late (fuse/recomputed_operands.h) graph -> graph: an operand read
//                                                again after other products is computed again
//   split_reductions (fuse/split_reductions.h)  graph -> graph: long reductions into stages
//   cut_nodes        (fuse/cut_nodes.h)         graph -> partition: which nodes are written, why
//   form_regions     (fuse/form_regions.h)      partition -> partition: roots grouped in regions
//   cut_values_recomputed_by_several_regions (fuse/shared_recompute.h): a long chain several
//                                                regions would recompute is written once
//   store_row_reductions_read_later (fuse/stored_reductions.h): row regions' reductions a later
//                                                region reads are written
//                                                (after each of these two, form_regions again)
//   build_terms      (fuse/build_terms.h)       partition -> partition: each region's terms
// build_terms may find a region it cannot build as formed (a reshape no strides express, a row
// region's value a later kernel reads); it then adds the cut that makes it buildable, and
// form_regions and build_terms run again. Cuts only grow, so this ends.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fuse/graph.h"
#include "ir/layout.h"
#include "ir/matmul_problem.h"
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
  scan,                 // a scan's result is written, and read back by its consumers
  top_k,                // a top-k's result is written, and read back by its consumers
  matmul,               // a matrix product: cuBLASLt writes it, its consumers read it back
  scatter,              // a scatter's result is written, and read back by its consumers
  scatter_operand,      // a scatter reads it from memory, at positions its index holds
  matmul_operand,       // a matrix product reads it from memory
  matmul_layout,        // a matrix product reads it in a layout cuBLASLt cannot take: written
                        // densely first (with the work that produced it)
  gather_source,        // a gather reads it at positions known only when its index is computed
  gather_in_reduction,  // a gather a reduction's or scan's kernel would read: written first (a
                        // row, reduction or scan kernel computes no gathers)
  concat_in_reduction,  // a concatenation a reduction's or scan's kernel would read: written first
  concat_per_kernel,    // a concatenation past a kernel's ir::kMaxConcatParts parts or argument
                        // space (fuse/kernel_arguments.h): written first
  recomputed,           // several kernels would each recompute it from a long chain of ops
                        // (fuse/shared_recompute.h): written once, read back by them
};
std::string_view cut_reason_name(CutReason reason);

// Why work that could have shared a kernel does not.
enum class Refusal : std::uint8_t {
  // A reduction that does not fold in a row region, and gets a reduction kernel of its own:
  not_trailing_axes,        // the axes it folds are not its input's last ones (or it folds none)
  empty_input,              // its input has no element
  rows_too_long,            // a row of 2^27 elements or more (positions are 32-bit)
  access_not_row_strided,   // an access no stride per row and per element of a row can walk
  rows_adjacent_in_memory,  // its rows are neighbours in memory: the column kernel reads them
                            // coalesced
  // Why a region takes no more roots:
  written_alone,     // it writes a value read back from memory by its consumers
  reduction_kernel,  // a reduction kernel over its own iteration space
  scan_kernel,       // a scan kernel over its input's rows, which only scans of that input join
  top_k_kernel,      // a top-k kernel over its input's rows, which only its positions join
  before_read_back,  // a value read back from memory came after it: its readers must follow
  before_reduction,  // a reduction came after it: work joining it would need the reduction first
  before_scan,       // a scan came after it: work joining it would need the scan first
  before_top_k,      // a top-k came after it: work joining it would need the top-k first
  // A root that starts a region of its own over a shape an earlier region has:
  region_closed,  // that region takes no more roots (see why it closed)
  outputs_limit,  // that region has kMaxOutputsPerKernel outputs
  // A matrix product's region: one cuBLASLt call, or for few rows the library's own product kernel
  // (runtime/plan_builder.cpp decides), which nothing else joins.
  library_call,
  scatter_kernel,  // a scatter kernel over its result, which nothing else joins
  before_scatter,  // a scatter came after it: work joining it would need the scatter first
  before_matmul,   // a matrix product came after it: work joining it would need the product first
};
std::string_view refusal_name(Refusal refusal);

// Longest chain of ops one kernel computes before a value is written and read back: long enough
// for any real pointwise chain (Inductor stops at 64 nodes), short enough that NVRTC compiles
// the kernel quickly and the partitioner's recursion stays shallow.
inline constexpr int kMaxFusedDepth = 128;
// Outputs of one kernel: each costs arguments and registers; more go to another kernel over the
// same iteration space.
inline constexpr int kMaxOutputsPerKernel = 16;

// A value a kernel writes: a pending node, or a dense copy of an external input (which a
// reshape that no strides express needs).
struct Root {
  std::uint32_t node;  // graph index, or external slot when `external_copy`
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
  // load: graph index of the root read, or external slot (`external`); else the graph index.
  std::uint32_t source;
  bool external = false;
  bool from_copy = false;  // load of the dense copy an earlier region made of external `source`
  // load: iteration index -> element of the source's storage. generator: iteration index ->
  // the generator's own linear index. A rank-0 layout is one element for every iteration.
  ir::Layout layout;
  std::array<std::int32_t, 3> operands{-1, -1, -1};
  int n_operands = 0;
  // A load whose position along one axis of its source is an index term's value: `layout` walks
  // the other axes (stride 0 along that one), the index adds index * stride.
  struct Gather {
    std::int32_t index;   // the term holding the index
    std::int64_t stride;  // the source's stride along the picked axis
    std::int64_t bound;   // the source's extent along it: valid indices are [0, bound)
    std::uint32_t node;   // graph index of the Gather node, to report a bad index
  };
  std::optional<Gather> gather;
  // An op term joining inputs: `layout` maps the iteration space onto the concatenation's
  // elements, p; input k's part computes those with p mod period in [ends[k - 1], ends[k]).
  struct Concat {
    std::vector<std::int32_t> parts;  // the term computing each input, over the iteration space
    std::int64_t period;              // elements of the joined axis and the axes inside it
    std::vector<std::int64_t> ends;   // where each input's part ends within a period
  };
  std::optional<Concat> concat;
};

// What a reduction region folds: its iteration space is the reduction's input with the folded
// axes moved last, so element i belongs to result i / extent.
struct ReductionInfo {
  std::uint32_t node;    // graph index of the reduction
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
  std::vector<std::uint32_t> reductions;      // graph indices, in the order they fold
  std::vector<std::int32_t> reduction_terms;  // the term of each one's folded value
};

// Why and where a region stopped taking roots.
struct RegionClosing {
  Refusal reason;
  // Graph index of the node whose placement closed it; -1 for a dense copy of an input.
  std::int32_t node;
};

// A matrix product's region: one cuBLASLt call (or, for few rows, the library's own product kernel)
// writing the MatMul node `node`. Its terms are the loads of the node's inputs (a, b, then the
// epilogue's bias and residual), each with the layout it has in memory; `problem` is how they map
// onto the call.
struct MatmulRegion {
  std::uint32_t node;
  ir::MatmulProblem problem;
  // The load term of each of the node's inputs (an input read twice is one term).
  std::vector<std::int32_t> input_terms;
};

// A scan region: scans over the last axis of one input, whose pointwise work they compute
// inline. The iteration space is that input; each root is a scan, its term the input's value.
struct ScanInfo {
  std::int64_t rows;    // elements of the leading axes
  std::int64_t extent;  // elements of the last axis, which each row scans
};

// A top-k region: the best k elements of each row of one input's last axis (the iteration
// space), whose pointwise work it computes inline; its roots are the values and the positions.
struct TopKInfo {
  std::int64_t rows;
  std::int64_t extent;
  std::int64_t k;
  bool largest;
  DType dtype;  // of the values ordered
};

// A scatter's region: one kernel writing the scatter node `node` (ir/scatter.h), whose inputs it
// reads from memory: x, the sorted index, its order and src, each by a load term with its layout.
struct ScatterRegion {
  std::uint32_t node;
  std::vector<std::int32_t> input_terms;  // by input, as ir::ScatterInput numbers them
};

struct Region {
  // The iteration space: every root has this shape (a reduction region: its permuted input; a
  // row region: its reductions' input, per-row roots have its kept axes).
  Shape shape;
  std::optional<ReductionInfo> reduction;
  std::optional<RowInfo> row;
  std::optional<ScanInfo> scan;
  std::optional<TopKInfo> top_k;
  std::optional<MatmulRegion> matmul;
  std::optional<ScatterRegion> scatter;
  std::vector<Root> roots;
  std::vector<Term> terms;
  std::vector<std::int32_t> root_terms;  // the term computing each root
  std::optional<RegionClosing> closed;   // once nothing more joins it
};

// Which nodes are written to memory, and why. cut_nodes decides; build_terms adds what a region
// needs that form_regions could not foresee (and form_regions writes a row region's reduction
// that must fold alone).
struct Cuts {
  std::vector<bool> needed;       // by graph index: a held node needs it
  std::vector<bool> cut;          // written to memory: a root
  std::vector<CutReason> reason;  // why, where cut
  // Cut so that its consumers read it back from memory: a region of its own.
  std::vector<bool> read_back;
  // A reduction that folds in a row region and is written too (held, or read by a later kernel).
  std::vector<bool> stored;
  // A reduction kept out of row regions by an access found while building terms, and why.
  std::vector<std::optional<Refusal>> no_row;
  // By external slot: a dense copy is written first (a reshape no strides express reads it).
  std::vector<bool> external_copy;

  // Cuts node i (a first reason stays).
  void add(std::uint32_t i, CutReason why);
  // Cuts node i to be read back from memory; whether that is new.
  bool add_read_back(std::uint32_t i, CutReason why);
};

// A fusion refused, for LAZY_DEBUG=2: node `node` (a graph index) and `reason`.
struct RefusedFusion {
  Refusal reason;
  std::uint32_t node;
};

struct Partition {
  // The graph the partition is of: the recorded one after split_reductions. Node indices below
  // (roots, terms, regions' reductions) are its indices.
  Graph graph;
  Cuts cuts;
  std::vector<Region> regions;  // in execution order: a region reads only earlier ones' roots
  // For each node of the graph: the region whose kernel writes it, or kNoRegion.
  static constexpr std::int32_t kNoRegion = -1;
  std::vector<std::int32_t> region_of;
  // Live nodes that are views: their data is a view of another node's (or an input's) memory.
  std::vector<std::uint32_t> live_views;
  // Live Scalar nodes (0-d full() tensors): written from the host, no kernel.
  std::vector<std::uint32_t> live_scalars;
  std::vector<RefusedFusion> refusals;  // by form_regions
  bool terms_built = false;             // by build_terms: every region has its terms
  // Rounds of forming regions and building terms: each round adds the cuts its terms need.
  int passes = 0;

  // The graph's rewrites, then regions, roots and why each was cut or closed, and the fusions
  // refused, one line each (LAZY_DEBUG=2).
  std::string describe() const;
};

struct PartitionOptions {
  bool fusion = true;  // LAZY_FUSION=0 turns it off
};

// `pending` in trace order (inputs before consumers); `live[i]`: a handle holds pending[i].
Partition partition(std::span<const ir::NodePtr> pending, const std::vector<bool>& live,
                    std::span<const ir::NodePtr> externals, PartitionOptions options);

}  // namespace lazy::fuse
