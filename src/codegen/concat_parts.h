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

// A kernel of several concatenations reads element by element, so a warp's lanes take
// consecutive elements and each load is one coalesced access: a group is a warp's tile of
// 32 * width elements, lane l's element e at the tile's start + l + 32 e. Groups in the grid
// (`n` elements), a group's first element, and its body of `element` (the statements and stores
// of element i); the tail does the last n % (32 * width) elements one at a time.
std::string tile_count(int width);
std::string tile_start(int width);
std::string tile_body(int width, const std::string& element);
std::string tile_tail(int width, const std::string& element);

}  // namespace lazy::codegen
