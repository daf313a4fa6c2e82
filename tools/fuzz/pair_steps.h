// The generator's steps of two tensors and one-hot encodings (generation 11): isclose of x and a
// second argument of its shape and dtype (x itself now and then), pairwise_distance along the last
// axis, outer of 1-d tensors; one_hot of index ids into as many classes as x's last axis, so that
// the result has x's shape.
#pragma once

#include "tools/fuzz/growing_program.h"

namespace lazy::fuzz {

void add_pair(GrowingProgram& g, int x);
void add_one_hot(GrowingProgram& g, int x);

}  // namespace lazy::fuzz
