// The sources of row kernels, by what they are written from. A kernel that takes its row length
// at run time holds nothing of the sizes in its text: every row length of one softmax or norm
// gives the same source, and only its arguments differ. One compiled for its length holds the
// length and its launch, but not the number of rows. Generating a text is most of a plan miss's
// host time (200k to 400k instructions a kernel), so a plan miss (a new row length, a new batch,
// a plan the cache dropped) finds the text here and computes only the arguments.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codegen/kernel_emitter.h"
#include "codegen/row_plan.h"
#include "ir/hash.h"

namespace lazy::codegen {

struct KernelText {
  std::string name;
  std::string source;
  std::vector<std::string> nvrtc_options;
};

// What a row kernel's text is written from: each term's kind, operands, node (op, dtypes, attrs,
// source line), level and phase, its access's shape of walk (two groups of kept axes, a
// contiguous row), the roots, the reductions and the options; for a kernel compiled for its
// length, also the length, the launch, the vector width and whether there are one or more rows.
// No stride or offset. Nothing for a region with a gather or a concatenation (not cached).
std::optional<ir::Hash128> row_text_key(const fuse::Region& region,
                                        std::span<const ir::NodePtr> pending,
                                        std::span<const ir::NodePtr> externals, const RowPlan& plan,
                                        const CodegenOptions& options);

std::optional<KernelText> find_row_text(const ir::Hash128& key);
void remember_row_text(const ir::Hash128& key, const GeneratedKernel& kernel);

// Whether each text found is checked against a fresh generation (the fuzzer turns this on).
void set_row_text_checks(bool enabled);
bool row_text_checks();

}  // namespace lazy::codegen
