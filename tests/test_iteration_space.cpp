// How many consecutive elements a pointwise kernel's thread takes as one group
// (codegen/iteration_space.h): 16 bytes of the narrowest tensor, fewer when the group's loads and
// stores together would not fit in a thread's registers.
#include <gtest/gtest.h>

#include <vector>

#include "codegen/iteration_space.h"

namespace {

using lazy::Shape;
using lazy::codegen::Access;
using lazy::ir::Layout;

int width_of(const Shape& shape, int bf16_tensors, int f32_tensors, int scalars = 0) {
  std::vector<Access> accesses;
  for (int i = 0; i < bf16_tensors; ++i) accesses.push_back({Layout::contiguous(shape), 2});
  for (int i = 0; i < f32_tensors; ++i) accesses.push_back({Layout::contiguous(shape), 4});
  for (int i = 0; i < scalars; ++i) accesses.push_back({Layout::contiguous(Shape{}), 4});
  return lazy::codegen::plan_iteration_space(shape, accesses).vector_width;
}

TEST(IterationSpace, AGroupIsSixteenBytesOfTheNarrowestTensor) {
  const Shape shape{4096, 4096};
  EXPECT_EQ(width_of(shape, 3, 0), 8);
  EXPECT_EQ(width_of(shape, 0, 3), 4);
  EXPECT_EQ(width_of(shape, 1, 6), 8);
}

// Adam over four tensors with bf16 gradients: 4 bf16 and 24 f32 streams, 104 bytes an element.
TEST(IterationSpace, AGroupThatWouldSpillIsHalved) {
  const Shape shape{4096, 4096};
  EXPECT_EQ(width_of(shape, 4, 24), 4);
  EXPECT_LE(width_of(shape, 4, 24) * (4 * 2 + 24 * 4), lazy::codegen::kMostGroupBytes);
  // Values the same for every element (hoisted out of the loop) hold no group.
  EXPECT_EQ(width_of(shape, 4, 8, 40), 8);
}

// x[1:] - x[:-1]: the load at offset 1 reads its group's elements one by one, the rest take
// vectors; where loads read alone move more bytes than vectors would, or a store is unaligned, a
// thread takes one element.
TEST(IterationSpace, UnalignedLoadsReadAloneBesideVectors) {
  const Shape shape{1 << 20};
  auto shifted = [&](std::int64_t offset) {
    Layout layout = Layout::contiguous(shape);
    layout.offset = offset;
    return layout;
  };
  auto plan = [&](std::vector<Access> accesses) {
    return lazy::codegen::plan_iteration_space(shape, accesses);
  };
  const auto diff = plan({{shifted(1), 4, true}, {shifted(0), 4, true}, {shifted(0), 4}});
  EXPECT_EQ(diff.vector_width, 4);
  EXPECT_TRUE(diff.accesses[0].unaligned);
  EXPECT_FALSE(diff.accesses[1].unaligned);
  EXPECT_FALSE(diff.accesses[2].unaligned);
  const auto mostly_alone = plan({{shifted(1), 4, true}, {shifted(3), 4, true}, {shifted(0), 4}});
  EXPECT_EQ(mostly_alone.vector_width, 1);
  EXPECT_FALSE(mostly_alone.accesses[0].unaligned);
  const auto unaligned_store =
      plan({{shifted(0), 4, true}, {shifted(0), 4, true}, {shifted(2), 4}});
  EXPECT_EQ(unaligned_store.vector_width, 1);
}

}  // namespace
