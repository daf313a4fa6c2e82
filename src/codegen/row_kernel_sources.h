// The sources of row kernels that take their row length at run time, by structure. Such a
// kernel's text holds nothing of the sizes: every row length of one softmax or norm gives the
// same source, and only its arguments differ. Generating that text is most of a plan miss's
// host time (about 200k instructions a kernel), so a new row length, a plan miss, finds the text
// here by a key of what the text is written from, and computes only the arguments.
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

// What a run-time-length row kernel's text is written from: each term's kind, operands, node
// (op, dtypes, attrs, source line), level and phase, its access's shape of walk (two groups of
// kept axes, a contiguous row), the roots, the reductions and the options; no size, stride or
// offset. Nothing for a region with a gather or a concatenation (not cached).
std::optional<ir::Hash128> run_time_row_key(const fuse::Region& region,
                                            std::span<const ir::NodePtr> pending,
                                            std::span<const ir::NodePtr> externals,
                                            const RowPlan& plan, const CodegenOptions& options);

std::optional<KernelText> find_row_text(const ir::Hash128& key);
void remember_row_text(const ir::Hash128& key, const GeneratedKernel& kernel);

// Whether each text found is checked against a fresh generation (the fuzzer turns this on).
void set_row_text_checks(bool enabled);
bool row_text_checks();

}  // namespace lazy::codegen
