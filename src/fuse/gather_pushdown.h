// Gathers pushed into a pointwise source: gather(f(a, b), index) is computed as f at the picked
// positions, each load under f reading at the index (cross-entropy's gather of a log_softmax
// reads one logit per row instead of the whole log_softmax written first).
//
// The walk from the gather down to a load carries the Gather node in its path of views, as a
// marker: views below it give the load's layout over the gather's source, the marker moves the
// picked axis to the index (stride 0 there, the stride and extent kept for the gather), and the
// views above it apply as usual.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "ir/layout.h"
#include "ir/node.h"

namespace lazy::fuse {

// Whether a gather computes its (pending) source inline rather than reading it from memory: the
// source is pointwise work and views down to values in memory (inputs, reductions, products),
// without generators, gathers or concatenations, and small enough to recompute per element.
bool gather_pushes_down(const ir::Node& source);

// Where a load under a pushed-down gather reads: along the picked axis, index * stride within
// [0, bound).
struct PushedGather {
  const ir::Node* node;  // the Gather
  std::int64_t stride;
  std::int64_t bound;
};

struct GatheredLayout {
  ir::Layout layout;
  std::optional<PushedGather> gather;
};

// compose_views (view_layout.h) through at most one Gather marker in `views`.
std::optional<GatheredLayout> compose_through_gather(const ir::Layout& base,
                                                     std::span<const ir::Node* const> views,
                                                     const ir::Node** failed_view);

}  // namespace lazy::fuse
