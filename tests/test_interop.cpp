// DLPack and raw pointers (lazy/interop.h) with host memory, wherever lazyfuse computes: a
// wrapped array of any strides and dtype computes like a copy of it, the producer's deleter runs
// exactly once when lazyfuse is done (also when it refuses the tensor), bad input is a ValueError
// at the caller's line, and a tensor given out through DLPack comes back as the same memory.
// tests/test_gpu_interop.cpp covers device memory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlpack/dlpack.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <lazy/lazy.h>

#include "runtime/device.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using ::testing::HasSubstr;

// A host DLPack tensor over `values`, counting its deleter's calls in `deleted`.
struct HostDlpack {
  DLManagedTensor managed{};
  std::vector<std::int64_t> shape, strides;
  int* deleted;
};

DLManagedTensor* host_dlpack(void* data, DLDataType dtype, std::vector<std::int64_t> shape,
                             std::vector<std::int64_t> strides, int* deleted,
                             DLDeviceType device = kDLCPU) {
  auto* held = new HostDlpack{{}, std::move(shape), std::move(strides), deleted};
  DLTensor& dl = held->managed.dl_tensor;
  dl.data = data;
  dl.device = {device, 0};
  dl.ndim = int(held->shape.size());
  dl.dtype = dtype;
  dl.shape = held->shape.data();
  dl.strides = held->strides.empty() ? nullptr : held->strides.data();
  held->managed.manager_ctx = held;
  held->managed.deleter = [](DLManagedTensor* self) {
    auto* owner = static_cast<HostDlpack*>(self->manager_ctx);
    ++*owner->deleted;
    delete owner;
  };
  return &held->managed;
}

TEST(Interop, AHostBlobOfAnyStridesComputesLikeItsValuesAndIsGivenBackOnce) {
  std::vector<float> values = {1, 2, 3, 4, 5, 6};  // [2, 3] row-major
  int deleted = 0;
  {
    const std::int64_t transposed[] = {1, 3};
    Tensor t = lazy::from_blob(values.data(), {3, 2}, transposed, DType::f32,
                               lazy::MemoryKind::host, [&](void* p) {
                                 EXPECT_EQ(p, values.data());
                                 ++deleted;
                               });
    EXPECT_EQ((t * 10.0f).to_vector<float>(), (std::vector<float>{10, 40, 20, 50, 30, 60}));
    EXPECT_EQ(t.strides(), (std::vector<std::int64_t>{1, 3}));
    EXPECT_EQ(deleted, 0);
  }
  lazy::sync();
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(values, (std::vector<float>{1, 2, 3, 4, 5, 6}))
      << "lazyfuse wrote the producer's memory";
}

TEST(Interop, ANegativeStrideIsAValueErrorAndTheTensorIsGivenBack) {
  std::vector<std::int32_t> values = {1, 2, 3, 4};
  const std::int64_t backwards[] = {-1};
  int deleted = 0;
  EXPECT_THROW(lazy::from_blob(values.data() + 3, {4}, backwards, DType::i32,
                               lazy::MemoryKind::host, [&](void*) { ++deleted; }),
               lazy::ValueError);
  EXPECT_EQ(deleted, 0) << "from_blob's deleter is for memory it took";
  std::vector<std::int64_t> strides = {-1};
  EXPECT_THROW(
      lazy::from_dlpack(host_dlpack(values.data() + 3, {kDLInt, 32, 1}, {4}, strides, &deleted)),
      lazy::ValueError);
  EXPECT_EQ(deleted, 1);
}

// Found in review: a negative stride along an axis of one (NumPy's reversed axis of one) was
// refused too, though it never moves, and to_dlpack sends such a stride out as dense.
TEST(Interop, ANegativeStrideAlongAnAxisOfOneIsTaken) {
  std::vector<std::int32_t> values = {1, 2, 3};
  std::vector<std::int64_t> strides = {-3, 1};
  int deleted = 0;
  {
    const Tensor t =
        lazy::from_dlpack(host_dlpack(values.data(), {kDLInt, 32, 1}, {1, 3}, strides, &deleted));
    EXPECT_EQ(t.to_vector<std::int32_t>(), values);
    const std::int64_t across[] = {-3, 1};
    EXPECT_EQ(lazy::from_blob(values.data(), {1, 3}, across, DType::i32, lazy::MemoryKind::host)
                  .to_vector<std::int32_t>(),
              values);
  }
  lazy::sync();
  EXPECT_EQ(deleted, 1);
}

// Random ranks, sizes and strides (zero and overlapping ones too) over one buffer:
// each element must be the one its strides point at.
TEST(Interop, RandomStridesReadTheElementsTheyPointAt) {
  std::mt19937 random(20261125);
  std::vector<float> buffer(4096);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = float(i);
  float* middle = buffer.data() + 7;
  for (int trial = 0; trial < 40; ++trial) {
    const int rank = std::uniform_int_distribution<int>(0, 4)(random);
    lazy::Shape shape;
    std::vector<std::int64_t> strides;
    for (int a = 0; a < rank; ++a) {
      shape.push_back(std::uniform_int_distribution<int>(0, 5)(random));
      strides.push_back(std::uniform_int_distribution<int>(0, 40)(random));
    }
    Tensor t = lazy::from_blob(middle, shape, strides, DType::f32, lazy::MemoryKind::host);
    std::vector<float> want;
    std::vector<std::int64_t> index(std::size_t(rank), 0);
    for (std::int64_t n = 0; n < shape.numel(); ++n) {
      std::int64_t offset = 0;
      for (int a = 0; a < rank; ++a) offset += index[std::size_t(a)] * strides[std::size_t(a)];
      want.push_back(middle[offset]);
      for (int a = rank - 1; a >= 0 && ++index[std::size_t(a)] == shape[a]; --a)
        index[std::size_t(a)] = 0;
    }
    EXPECT_EQ((t * 1.0f).to_vector<float>(), want)
        << "trial " << trial << ", shape " << shape.to_string();
  }
}

TEST(Interop, BadBlobsAreValueErrorsAtTheCallersLine) {
  float x = 0;
  const std::int64_t one[] = {1};
  EXPECT_THROW(lazy::from_blob(&x, {2, 2}, one, DType::f32, lazy::MemoryKind::host),
               lazy::ValueError);
  int line = 0;
  try {
    line = __LINE__ + 1;
    lazy::from_blob(nullptr, {3}, {}, DType::f32, lazy::MemoryKind::host);
    FAIL() << "a null pointer with elements was taken";
  } catch (const lazy::ValueError& error) {
    EXPECT_THAT(error.what(), HasSubstr("null pointer"));
    EXPECT_EQ(int(error.where().line()), line);
  }
  EXPECT_EQ(lazy::from_blob(nullptr, {0, 3}, {}, DType::f32, lazy::MemoryKind::host).numel(), 0);
}

TEST(Interop, EveryDtypeComesInThroughDlpack) {
  struct Case {
    DLDataType dtype;
    DType want;
    std::vector<std::uint8_t> bytes;  // two elements
    std::vector<double> values;
  };
  const std::uint16_t bf16_one = 0x3f80, bf16_minus_two = 0xc000;
  const std::uint16_t f16_half = 0x3800, f16_three = 0x4200;
  std::vector<Case> cases;
  auto bytes_of = [](const auto& a, const auto& b) {
    std::vector<std::uint8_t> bytes(2 * sizeof a);
    std::memcpy(bytes.data(), &a, sizeof a);
    std::memcpy(bytes.data() + sizeof a, &b, sizeof b);
    return bytes;
  };
  cases.push_back({{kDLFloat, 32, 1}, DType::f32, bytes_of(1.5f, -2.0f), {1.5, -2}});
  cases.push_back({{kDLFloat, 16, 1}, DType::f16, bytes_of(f16_half, f16_three), {0.5, 3}});
  cases.push_back({{kDLBfloat, 16, 1}, DType::bf16, bytes_of(bf16_one, bf16_minus_two), {1, -2}});
  cases.push_back(
      {{kDLInt, 32, 1}, DType::i32, bytes_of(std::int32_t(7), std::int32_t(-9)), {7, -9}});
  cases.push_back({{kDLInt, 64, 1},
                   DType::i64,
                   bytes_of(std::int64_t(1) << 40, std::int64_t(3)),
                   {double(std::int64_t(1) << 40), 3}});
  cases.push_back({{6, 8, 1}, DType::bool_, {1, 0}, {1, 0}});
  for (Case& c : cases) {
    int deleted = 0;
    {
      Tensor t = lazy::from_dlpack(host_dlpack(c.bytes.data(), c.dtype, {2}, {}, &deleted));
      EXPECT_EQ(t.dtype(), c.want);
      const std::vector<float> got = t.to(DType::f32).to_vector<float>();
      EXPECT_EQ(double(got[0]), float(c.values[0])) << lazy::dtype_name(c.want);
      EXPECT_EQ(double(got[1]), float(c.values[1])) << lazy::dtype_name(c.want);
    }
    lazy::sync();
    EXPECT_EQ(deleted, 1) << lazy::dtype_name(c.want);
  }
}

TEST(Interop, ARefusedDlpackTensorIsStillGivenBack) {
  std::vector<double> values(4);
  int deleted = 0;
  EXPECT_THROW(lazy::from_dlpack(host_dlpack(values.data(), {kDLFloat, 64, 1}, {4}, {}, &deleted)),
               lazy::ValueError);
  EXPECT_EQ(deleted, 1);
  try {
    lazy::from_dlpack(host_dlpack(values.data(), {kDLFloat, 32, 1}, {4}, {}, &deleted, kDLVulkan));
    FAIL() << "Vulkan memory was taken";
  } catch (const lazy::ValueError& error) {
    EXPECT_THAT(error.what(), HasSubstr("kDLCUDA"));
  }
  EXPECT_EQ(deleted, 2);
}

TEST(Interop, ATensorGivenOutComesBackAsTheSameMemory) {
  Tensor t = lazy::arange(0, 12, 1, DType::f32).reshape({3, 4}).transpose(0, 1) * 2.0f;
  DLManagedTensor* out = lazy::to_dlpack(t);
  const DLTensor& dl = out->dl_tensor;
  EXPECT_EQ(dl.ndim, 2);
  EXPECT_EQ(dl.shape[0], 4);
  EXPECT_EQ(dl.shape[1], 3);
  EXPECT_EQ(dl.dtype.code, kDLFloat);
  EXPECT_EQ(dl.dtype.bits, 32);
  const bool gpu = lazy::runtime::Device::get() != nullptr;
  EXPECT_EQ(dl.device.device_type, gpu ? kDLCUDA : kDLCPU);
  const std::vector<std::int64_t> strides = t.strides();
  for (int a = 0; a < 2; ++a) EXPECT_EQ(dl.strides[a], strides[std::size_t(a)]);
  EXPECT_EQ(static_cast<char*>(dl.data) + dl.byte_offset, t.data_ptr());
  Tensor back = lazy::from_dlpack(out);
  // A view past its storage's start goes out at its first element: consumers that ignore
  // byte_offset (PyTorch up to 2.9) read it right.
  const Tensor tail = t.slice(0, 1, 4);
  DLManagedTensor* view = lazy::to_dlpack(tail);
  EXPECT_EQ(view->dl_tensor.byte_offset, 0u);
  EXPECT_EQ(view->dl_tensor.data, tail.data_ptr());
  view->deleter(view);
  EXPECT_EQ(back.data_ptr(), t.data_ptr());
  EXPECT_EQ(back.to_vector<float>(), t.to_vector<float>());
  const Tensor flags = lazy::arange(4) > 1;
  DLManagedTensor* bools = lazy::to_dlpack(flags);
  EXPECT_EQ(bools->dl_tensor.dtype.code, 6) << "DLPack's kDLBool";
  EXPECT_EQ(lazy::from_dlpack(bools).to_vector<bool>(),
            (std::vector<bool>{false, false, true, true}));
}

}  // namespace
