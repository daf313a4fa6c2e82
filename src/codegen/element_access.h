// How a pointwise or reduction kernel addresses a term's access for the current element: i in a
// loop over elements, or element e of the group starting at i (`vector`), with o<t> the strided
// offset at the group's start (generated_names.h).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "codegen/iteration_space.h"
#include "codegen/kernel_builder.h"

namespace lazy::codegen {

// The stored element load t reads.
std::string raw_element(const AccessPlan& plan, std::size_t t, bool vector);
// The stored element e of the group load t reads, read alone (no vector load holds it).
std::string lone_element(const AccessPlan& plan, std::size_t t);
// Where a gather load's walked axes put the element (with vector = false, the group's first
// element, where a vector gather reads from: vector_gathers.h); its index adds to that.
std::string gather_base(const AccessPlan& plan, std::size_t t, bool vector);
// A generator's linear index (or a concatenation's position) for the element.
std::string generator_index(const AccessPlan& plan, std::size_t t, bool vector);

// The declaration of vector_load_name(t): the group's `width` elements as one vector load (dense,
// or strided by 1) or one element (strided by 0); nothing for other accesses.
std::string vector_load(const AccessPlan& plan, std::size_t t, int width, std::string_view indent);

// The merged dims' sizes (and 32-bit kernels' division constants) group_offsets divides by.
void declare_multi_index_args(const IterationSpace& space, KernelBuilder& builder);

// Index arithmetic at the start of a group (or element) i: its multi-index c<d> over the merged
// dims and each strided access's offset, named <offset_name><t> (`access_of_term`: by term, its
// access in `space`, or -1).
std::string group_offsets(const IterationSpace& space, std::span<const int> access_of_term,
                          std::string_view offset_name, std::string_view indent);

}  // namespace lazy::codegen
