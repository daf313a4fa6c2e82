// FreeBlocks: freed small blocks come back for allocations of their rounded size, large blocks
// and blocks past the cache's bound go back to the caller to free, and drain empties it.
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/device.h"
#include "runtime/free_blocks.h"

namespace {

using lazy::runtime::FreeBlocks;

TEST(FreeBlocks, AKeptBlockServesTheNextRequestOfItsRoundedSizeOnce) {
  FreeBlocks blocks;
  EXPECT_EQ(blocks.take(1000), 0u);
  ASSERT_TRUE(blocks.keep(0x1000, 1000));
  EXPECT_EQ(blocks.take(2000), 0u);       // another size class
  EXPECT_EQ(blocks.take(1020), 0x1000u);  // 1000 and 1020 both round to 1024
  EXPECT_EQ(blocks.take(1000), 0u);
}

TEST(FreeBlocks, SizesPastFourKilobytesShareAQuarterOctave) {
  EXPECT_EQ(FreeBlocks::rounded(4096), 4096u);
  EXPECT_EQ(FreeBlocks::rounded(4097), 5120u);
  EXPECT_EQ(FreeBlocks::rounded(5120), 5120u);
  EXPECT_EQ(FreeBlocks::rounded(FreeBlocks::kLargestBlock), FreeBlocks::kLargestBlock);
  for (std::size_t bytes = 4097; bytes < (std::size_t(1) << 24); bytes = bytes * 9 / 8 + 7) {
    const std::size_t size = FreeBlocks::rounded(bytes);
    EXPECT_GE(size, bytes);
    EXPECT_LE(size - bytes, bytes / 4) << bytes;
    EXPECT_EQ(FreeBlocks::rounded(size), size) << bytes;
  }
  FreeBlocks blocks;
  ASSERT_TRUE(blocks.keep(0x1000, 256 * 3000));  // a [64, 3000] f32 row block
  EXPECT_EQ(blocks.take(256 * 2900), 0x1000u);   // and the next length's
}

TEST(FreeBlocks, BlocksOfOneSizeComeBackLastFreedFirst) {
  FreeBlocks blocks;
  ASSERT_TRUE(blocks.keep(0x1000, 256));
  ASSERT_TRUE(blocks.keep(0x2000, 256));
  EXPECT_EQ(blocks.take(256), 0x2000u);
  EXPECT_EQ(blocks.take(256), 0x1000u);
}

TEST(FreeBlocks, LargeBlocksAndBlocksPastTheBoundAreNotKept) {
  FreeBlocks blocks;
  EXPECT_FALSE(blocks.keep(0x1000, FreeBlocks::kLargestBlock + 1));
  const std::size_t count = FreeBlocks::kMostBytes / FreeBlocks::kLargestBlock;
  for (std::size_t i = 0; i < count; ++i)
    ASSERT_TRUE(blocks.keep(0x100000 * (i + 1), FreeBlocks::kLargestBlock)) << i;
  EXPECT_FALSE(blocks.keep(0x1, 256));
  EXPECT_NE(blocks.take(FreeBlocks::kLargestBlock), 0u);
  EXPECT_TRUE(blocks.keep(0x1, 256));  // room again
}

TEST(FreeBlocks, DrainHandsBackEveryBlockAndEmptiesTheCache) {
  FreeBlocks blocks;
  ASSERT_TRUE(blocks.keep(0x1000, 256));
  ASSERT_TRUE(blocks.keep(0x2000, 512));
  ASSERT_TRUE(blocks.keep(0x3000, 512));
  std::vector<CUdeviceptr> drained = blocks.drain();
  std::sort(drained.begin(), drained.end());
  EXPECT_EQ(drained, (std::vector<CUdeviceptr>{0x1000, 0x2000, 0x3000}));
  EXPECT_EQ(blocks.take(256), 0u);
  EXPECT_TRUE(blocks.drain().empty());
}

TEST(FreeBlocks, ADeviceReusesASmallFreedBufferButNotOneStillHeld) {
  lazy::runtime::Device* device = lazy::runtime::Device::get();
  if (device == nullptr) GTEST_SKIP() << "no CUDA device: " << lazy::runtime::Device::why_host();
  CUdeviceptr small = device->allocate(4000)->ptr();  // freed at once
  EXPECT_EQ(device->allocate(4096)->ptr(), small);
  auto held = device->allocate(4000);
  EXPECT_NE(device->allocate(4000)->ptr(), held->ptr());
}

}  // namespace
