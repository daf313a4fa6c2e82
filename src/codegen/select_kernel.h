// How a kernel of several concatenations (select_statements, concat_parts.h) reads its elements.
// Like other pointwise kernels it walks groups of space.vector_width consecutive elements: the
// loads every element reads are one vector per group, and so is a concatenation whose group lies
// in one part of plain loads (a roll along an outer axis); the others, and every load of a part's
// own terms, read each element alone.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "codegen/concat_parts.h"
#include "codegen/iteration_space.h"
#include "codegen/kernel_builder.h"
#include "fuse/partition.h"

namespace lazy::codegen {

class SelectKernel {
 public:
  // `access_of_term` indexes space.accesses by term (-1: none); `read_everywhere` is
  // loads_read_everywhere(region); `uniform` marks the terms computed once before the loop;
  // `term_statement(t, vector)` is the emitter's statement of term t for element i, or for
  // element e of the group at i (vector).
  SelectKernel(const fuse::Region& region, const IterationSpace& space,
               std::span<const int> access_of_term, std::vector<bool> read_everywhere,
               std::vector<bool> uniform, const KernelBuilder& builder, bool sizes_compiled,
               std::function<std::string(std::size_t, bool)> term_statement);

  // The loads that every element of a select kernel reads, by term: those the space's vector
  // width is planned for.
  static std::vector<bool> loads_read_everywhere(const fuse::Region& region);

  // Element i's statements (one at a time: a width of 1, or the tail).
  std::string element_statements() const;
  // The group at i: its vector loads, before the loop over its elements.
  std::string group_loads() const;
  // Element e of the group at i: its statements, inside that loop.
  std::string group_element() const;

 private:
  const AccessPlan& access(std::size_t t) const;
  // Writes element i (element = false) or element e of the group (true).
  SelectWriter writer(bool element) const;

  const fuse::Region& region_;
  const IterationSpace& space_;
  std::span<const int> access_of_term_;
  std::vector<bool> uniform_;
  const KernelBuilder& builder_;
  bool sizes_compiled_;
  std::function<std::string(std::size_t, bool)> term_statement_;
  std::vector<bool> group_vectors_;  // by term: read as one vector a group
};

}  // namespace lazy::codegen
