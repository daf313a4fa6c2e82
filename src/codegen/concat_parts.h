// What a kernel with a concatenation computes per part: each element (or group of elements) lies
// in one input's part, and computes only the terms that part needs.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "codegen/iteration_space.h"
#include "codegen/kernel_builder.h"
#include "fuse/partition.h"

namespace lazy::codegen {

// Whether every group of `width` elements, starting at a multiple of it, lies in one part: the
// concatenation's positions (its access `plan`) are one per group (stride 0) or consecutive from
// a multiple of the width, and every part ends at a multiple of the width.
bool groups_stay_in_one_part(const AccessPlan& plan, const fuse::Term::Concat& concat, int width);

// The kernel arguments concatenation term t reads: its period (with division constants for
// 32-bit indices) and where each part ends in it.
void declare_concat_args(std::size_t t, const fuse::Term::Concat& concat, bool index_32bit,
                         KernelBuilder& builder);

// By term: whether the region's roots need it for elements in `part` (-1: in any part).
std::vector<bool> terms_of_part(const fuse::Region& region, int part);

// `body(k)` for each part k of concatenation term t, behind tests of which part the element (or
// group) at `position` (a long long expression) lies in: p<t>, its place in a period r<t>, then
// r<t> against the parts' ends (generated_names.h).
std::string parts_by_position(std::size_t t, const std::string& position, std::size_t parts,
                              bool index_32bit, const std::function<std::string(int)>& body);

// By term: whether `roots` need it, not counting what concatenations need in their parts.
std::vector<bool> terms_outside_parts(const fuse::Region& region,
                                      std::span<const std::int32_t> roots);

// How select_statements writes a kernel's terms.
struct SelectWriter {
  std::function<std::string(std::size_t)> statement;        // of a term other than a concatenation
  std::function<std::string(std::size_t)> position;         // concatenation t's position
  std::function<std::string(std::size_t)> declaration;      // concatenation t's value, unset
  std::function<std::string(std::size_t, int)> assignment;  // ... set to part k's value
  bool index_32bit = false;
};

// For a kernel of several concatenations, each computed where it is read rather than around the
// whole element: the statements of the terms `roots` need and `done` does not hold, in order. A
// concatenation is declared, then set in the branch of the element's part after that part's own
// terms, which stay in the branch: elsewhere they may read outside their tensors.
std::string select_statements(const fuse::Region& region, std::span<const std::int32_t> roots,
                              std::vector<bool> done, const SelectWriter& writer);

}  // namespace lazy::codegen
