// The sources of generated kernels, by what they are written from. A pointwise or column kernel
// holds nothing of the sizes in its text, nor does a row kernel that takes its row length at run
// time: every shape of one structure gives the same source, and only its arguments differ. A row
// kernel compiled for its length holds the length and its launch, but not the number of rows.
// Generating a text is most of a plan miss's host time (200k to 400k instructions a kernel), so
// a plan miss (a new shape, a plan the cache dropped) finds the text here and computes only the
// arguments.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <absl/functional/function_ref.h>

#include "codegen/iteration_space.h"
#include "codegen/kernel_emitter.h"
#include "codegen/row_plan.h"
#include "ir/hash.h"

namespace lazy::codegen {

struct KernelText {
  std::string name;
  std::string source;
  std::vector<std::string> nvrtc_options;
  ir::Hash128 source_hash;  // ir::hash_bytes of `source`
};

// What a row kernel's text is written from (`text`): each term's kind, operands, node (op,
// dtypes, attrs, source line), level and phase, its access's shape of walk (two groups of kept
// axes, a contiguous row), the roots, the reductions, the options and the vector width; for a
// kernel compiled for its length, also the length, the launch and whether there are one or more
// rows. No stride or offset. `structure` leaves out the vector width and the sizes: what the
// kernels of every length share. Nothing for a region with a gather or a concatenation (not
// cached).
struct RowTextKeys {
  ir::Hash128 text;
  ir::Hash128 structure;
};
std::optional<RowTextKeys> row_text_keys(const fuse::Region& region,
                                         std::span<const ir::NodePtr> pending,
                                         std::span<const ir::NodePtr> externals,
                                         const RowPlan& plan, const CodegenOptions& options);

// What a pointwise or reduction kernel's text is written from: each term's kind, operands and
// node (op, dtypes, attrs, source line), the roots, the region's rank, and of the planned
// iteration space its merged rank, vector width, index width and each access's mode and kind of
// innermost stride (0, 1 or other). No size, stride or offset. The caller leaves out what is not
// cached (gathers, concatenations, scans, top-k, reordered visits, copies of externals).
ir::Hash128 pointwise_text_key(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                               std::span<const ir::NodePtr> externals, const IterationSpace& space,
                               std::span<const int> access_of_term, bool column,
                               const CodegenOptions& options);

// The kernel of `key` from its cached text (`with_text`), else generated (`generate`) and its
// text kept. With kernel_text_checks(), a kernel from a cached text is compared with one
// generated afresh (`generate_afresh`), and a difference is an internal error at `origin` (a
// node of the region; may be null when there is no key).
GeneratedKernel kernel_from_text_cache(const std::optional<ir::Hash128>& key,
                                       absl::FunctionRef<GeneratedKernel(KernelText)> with_text,
                                       absl::FunctionRef<GeneratedKernel()> generate,
                                       absl::FunctionRef<GeneratedKernel()> generate_afresh,
                                       const ir::Node* origin);

// Whether each text found is checked against a fresh generation (the fuzzer turns this on).
void set_kernel_text_checks(bool enabled);
bool kernel_text_checks();

}  // namespace lazy::codegen
