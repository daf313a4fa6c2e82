// fuse::row_walk: how a load walks a row region's rows and their elements. Runs without a GPU.
#include <gtest/gtest.h>

#include "fuse/row_walk.h"
#include "ir/layout.h"

namespace {

using lazy::Shape;
using lazy::fuse::row_walk;
using lazy::ir::Layout;

TEST(RowWalk, ContiguousRowsHaveOneStride) {
  const auto walk = row_walk(Layout::contiguous(Shape{4, 5, 6}), 1);
  ASSERT_TRUE(walk);
  EXPECT_EQ(walk->row_stride, 6);
  EXPECT_EQ(walk->inner_rows, 0);
  EXPECT_EQ(walk->extent_stride, 1);
}

TEST(RowWalk, MaskBroadcastOverHeadsTakesTwoGroups) {
  // [S, S] expanded to [B, H, S, S]: row r starts at (r % S) * S.
  const Layout mask = lazy::ir::expand_layout(Layout::contiguous(Shape{7, 7}), Shape{2, 3, 7, 7});
  const auto walk = row_walk(mask, 1);
  ASSERT_TRUE(walk);
  EXPECT_EQ(walk->inner_rows, 7);
  EXPECT_EQ(walk->row_stride, 7);
  EXPECT_EQ(walk->outer_stride, 0);
  EXPECT_EQ(walk->extent_stride, 1);
  // Every element lands where the layout says.
  for (std::int64_t row = 0; row < 2 * 3 * 7; ++row) {
    for (std::int64_t j = 0; j < 7; ++j) {
      const std::int64_t start = (row / walk->inner_rows) * walk->outer_stride +
                                 (row % walk->inner_rows) * walk->row_stride;
      const std::int64_t s = row % 7;
      EXPECT_EQ(walk->offset + start + j * walk->extent_stride, s * 7 + j);
    }
  }
}

TEST(RowWalk, ThreeGroupsOrASplitRowDoNotWalk) {
  Layout three = Layout::contiguous(Shape{2, 3, 4, 5});
  three.strides = {100, 0, 7, 1};
  EXPECT_FALSE(row_walk(three, 1));
  Layout split_row = Layout::contiguous(Shape{3, 4, 5});
  split_row.strides = {40, 1, 8};  // the row's two axes do not collapse
  EXPECT_FALSE(row_walk(split_row, 2));
}

TEST(RowWalk, PerRowValuesHaveNoElementStride) {
  Layout per_row = Layout::contiguous(Shape{6, 9});
  per_row.strides = {1, 0};
  const auto walk = row_walk(per_row, 1);
  ASSERT_TRUE(walk);
  EXPECT_EQ(walk->extent_stride, 0);
  EXPECT_EQ(walk->row_stride, 1);
}

}  // namespace
