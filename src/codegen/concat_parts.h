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

// Whether region's kernel computes several concatenations (a stencil of rolls or pads), each
// where it is read (select_statements).
bool several_concatenations(const fuse::Region& region);

// Whether every group of `width` elements, starting at a multiple of it, lies in one part: the
// concatenation's positions (its access `plan`) are one per group (stride 0) or consecutive from
// a multiple of the width, and every part ends at a multiple of the width.
bool groups_stay_in_one_part(const AccessPlan& plan, const fuse::Term::Concat& concat, int width);

// The kernel arguments concatenation term t reads: its period (with division constants for
// 32-bit indices, unless `sizes_compiled`: the compiler divides by a constant) and where each
// part ends in it.
void declare_concat_args(std::size_t t, const fuse::Term::Concat& concat, bool index_32bit,
                         bool sizes_compiled, KernelBuilder& builder);

// By term: whether the region's roots need it for elements in `part` (-1: in any part).
std::vector<bool> terms_of_part(const fuse::Region& region, int part);

// `body(k)` for each part k of concatenation term t, behind tests of which part the element (or
// group) at `position` (a long long expression) lies in: p<t>, its place in a period r<t>, then
// r<t> against the parts' ends (generated_names.h).
std::string parts_by_position(std::size_t t, const std::string& position, std::size_t parts,
                              bool index_32bit, bool sizes_compiled,
                              const std::function<std::string(int)>& body);

// By term: whether `roots` need it, not counting what concatenations need in their parts.
std::vector<bool> terms_outside_parts(const fuse::Region& region,
                                      std::span<const std::int32_t> roots);

// How select_statements writes a kernel's terms.
struct SelectWriter {
  std::function<std::string(std::size_t)> statement;  // of a term other than a concatenation
  std::function<std::string(std::size_t)> position;   // concatenation t's position
  std::function<std::string(std::size_t)> element;    // the element plain load t reads
  const KernelBuilder& builder;
  bool index_32bit = false;
  bool sizes_compiled = false;  // periods and ends are compile-time constants
};

// For a kernel of several concatenations, each computed where it is read rather than around the
// whole element: the statements of the terms `roots` need and `done` does not hold, in order. A
// concatenation is declared, then set in the branch of the element's part after that part's own
// terms, which stay in the branch: elsewhere they may read outside their tensors. Where every part
// is a plain load, the branch only picks the address to load from.
std::string select_statements(const fuse::Region& region, std::span<const std::int32_t> roots,
                              std::vector<bool> done, const SelectWriter& writer);

// Whether concatenation t's groups of `width` elements (`space`, with `access_of_term` indexing
// its accesses by term) are each read as one vector: a group lies in one part, and every part is
// a plain load of the concatenation's dtype that reads the group's elements consecutively from an
// aligned offset (a roll or cat along an outer axis).
bool reads_part_vectors(const fuse::Region& region, std::size_t t, const IterationSpace& space,
                        std::span<const int> access_of_term, const KernelBuilder& builder);

// Concatenation t's group as ldv<t>, `width` elements of the part its first element lies in:
// `writer` gives positions and elements at the group's start.
std::string part_vector_load(const fuse::Region& region, std::size_t t, int width,
                             const SelectWriter& writer);

}  // namespace lazy::codegen
