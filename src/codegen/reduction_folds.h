// How generated kernels fold a reduction: the accumulator's type and identity, the lz_fold_*
// function (nvrtc_templates/lz_device.cuh) and how elements enter and the result leaves it.
#pragma once

#include <string>

#include "ir/node.h"

namespace lazy::codegen {

struct Fold {
  std::string acc_type;  // float, long long, or int (bool and i32: shuffles take no bool)
  std::string identity;  // the accumulator's start: what an empty fold gives
  std::string function;  // lz_fold_sum, lz_fold_argmax, ...
  bool positional;       // argmax / argmin: the result is the position `at`
  bool logical;          // any / all
};

Fold fold_of(const ir::Node& reduction);

// An element (an expression of dtype `folded`) as the accumulator's type.
std::string fold_input(const ir::Node& reduction, const Fold& fold, DType folded,
                       const std::string& value);

// The result from the accumulator `acc` (and position `at`) as a value of the reduction's dtype.
std::string fold_result(const ir::Node& reduction, const Fold& fold, const std::string& acc,
                        const std::string& at);

}  // namespace lazy::codegen
