// Device memory in and out of lazyfuse (lazy/interop.h) on a GPU: memory of the caller's is read
// where it is and never written, comes back through DLPack as the same pointer, is given back
// once; and with lazy::set_stream, a producer kernel on the caller's stream, lazyfuse's sync and a
// consumer copy on that stream run in order with no host wait, as do a producer on the legacy
// default stream and a sync with no stream bound (each test would fail unordered).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlpack/dlpack.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <lazy/lazy.h>

#include "gpu_test_support.h"
#include "jit/kernel_cache.h"
#include "runtime/cuda_driver.h"
#include "runtime/device.h"

namespace {

using lazy::DType;
using lazy::Tensor;
using lazy::runtime::Device;

// ~1.5e8 cycles: tens of milliseconds, far longer than lazyfuse's work here.
constexpr unsigned long long kSpinCycles = 150'000'000ull;

class GpuInterop : public lazy_test::GpuTest {
 protected:
  void SetUp() override {
    lazy_test::GpuTest::SetUp();
    if (IsSkipped()) return;
    device_ = Device::get();
    driver_ = lazy::runtime::cuda_driver();
    device_->make_current();
    // One for the process: lazyfuse's driver table has no cuStreamDestroy, nor needs one.
    static CUstream stream = [&] {
      CUstream made = nullptr;
      EXPECT_EQ(driver_->cuStreamCreate(&made, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
      return made;
    }();
    caller_ = stream;
    ASSERT_NE(caller_, nullptr);
  }
  void TearDown() override {
    lazy::set_stream(nullptr);
    if (caller_ != nullptr) driver_->cuStreamSynchronize(caller_);
    lazy_test::GpuTest::TearDown();
  }

  // Keeps `stream` busy for a while, so that work not ordered after it runs first.
  void spin_on(CUstream stream) {
    const std::string source =
        "extern \"C\" __global__ void lz_test_spin(unsigned long long cycles) {\n"
        "  long long start = clock64();\n"
        "  while ((unsigned long long)(clock64() - start) < cycles) {}\n"
        "}\n";
    auto lookup = lazy::jit::KernelCache::instance().get_or_compile("lz_test_spin", source,
                                                                    device_->sm_arch());
    CUfunction spin =
        device_->get_function(device_->load_module(lookup.kernel->cubin), "lz_test_spin");
    unsigned long long cycles = kSpinCycles;
    void* args[] = {&cycles};
    ASSERT_EQ(driver_->cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, stream, args, nullptr),
              CUDA_SUCCESS);
  }
  void spin_on_caller() { spin_on(caller_); }

  // A consumer's copy of `count` floats at `address`, queued on the legacy default stream behind
  // a spin: it reads them well after lazyfuse's next work was queued.
  std::shared_ptr<lazy::runtime::DeviceBuffer> slow_consumer_copy(CUdeviceptr address,
                                                                  std::size_t count) {
    auto copy = device_->allocate(count * 4);
    spin_on(CU_STREAM_LEGACY);
    EXPECT_EQ(driver_->cuMemcpyDtoDAsync(copy->ptr(), address, count * 4, CU_STREAM_LEGACY),
              CUDA_SUCCESS);
    return copy;
  }

  std::vector<float> read(CUdeviceptr address, std::size_t count) {
    std::vector<float> values(count);
    device_->synchronize();
    EXPECT_EQ(driver_->cuStreamSynchronize(caller_), CUDA_SUCCESS);
    EXPECT_EQ(driver_->cuMemcpyDtoHAsync(values.data(), address, count * 4, caller_), CUDA_SUCCESS);
    EXPECT_EQ(driver_->cuStreamSynchronize(caller_), CUDA_SUCCESS);
    return values;
  }

  Device* device_ = nullptr;
  const lazy::runtime::CudaDriver* driver_ = nullptr;
  CUstream caller_ = nullptr;
};

TEST_F(GpuInterop, DeviceMemoryIsReadWhereItIsNeverWrittenAndGivenBackOnce) {
  constexpr std::size_t kCount = 1 << 20;
  auto memory = device_->allocate(kCount * 4);
  const std::vector<float> values =
      lazy_test::random_input(DType::f32, {kCount}).to_vector<float>();
  device_->copy_to_device(memory->ptr(), values.data(), kCount * 4);
  int given_back = 0;
  {
    Tensor x = lazy::from_blob(reinterpret_cast<void*>(memory->ptr()), {kCount}, {}, DType::f32,
                               lazy::MemoryKind::cuda, [&](void*) { ++given_back; });
    EXPECT_EQ(x.data_ptr(), reinterpret_cast<void*>(memory->ptr())) << "copied on the way in";
    EXPECT_EQ(given_back, 0);
    // Its only handle goes with the update: an input nobody holds, but the caller's memory.
    x = x + 1.0f;
    const std::vector<float> plus_one = x.to_vector<float>();
    for (std::size_t i = 0; i < kCount; i += 4099) ASSERT_EQ(plus_one[i], values[i] + 1.0f) << i;
    EXPECT_NE(x.data_ptr(), reinterpret_cast<void*>(memory->ptr())) << "written over its input";
    EXPECT_EQ(given_back, 1) << "not given back once no lazy tensor reads it";
  }
  EXPECT_EQ(given_back, 1);
  EXPECT_EQ(read(memory->ptr(), kCount), values) << "lazyfuse wrote the caller's memory";
}

// From the fourth repeat a step replays as a CUDA graph (docs/architecture.md): new memory taken in
// every step must reach it as a new address.
TEST_F(GpuInterop, ARepeatedStepReadsEachStepsMemoryTakenIn) {
  constexpr std::size_t kCount = 1 << 16;
  for (int step = 0; step < 8; ++step) {
    auto memory = device_->allocate(kCount * 4);
    const std::vector<float> values =
        lazy_test::random_input(DType::f32, {std::int64_t(kCount)}).to_vector<float>();
    device_->copy_to_device(memory->ptr(), values.data(), kCount * 4);
    Tensor x = lazy::from_blob(reinterpret_cast<void*>(memory->ptr()), {std::int64_t(kCount)}, {},
                               DType::f32, lazy::MemoryKind::cuda);
    const std::vector<float> got = (lazy::exp(x) * 0.5f).to_vector<float>();
    for (std::size_t i = 0; i < kCount; i += 97) {
      ASSERT_NEAR(got[i], std::exp(values[i]) * 0.5f, 1e-5f * std::exp(values[i])) << step;
    }
  }
}

TEST_F(GpuInterop, AResultGoesOutAndComesBackThroughDlpackAsTheSamePointer) {
  Tensor t = lazy_test::random_input(DType::bf16, {64, 48}).transpose(0, 1) * 3.0f;
  DLManagedTensor* out = lazy::to_dlpack(t);
  EXPECT_EQ(out->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(out->dl_tensor.device.device_id, device_->ordinal());
  EXPECT_EQ(out->dl_tensor.dtype.code, kDLBfloat);
  void* pointer = static_cast<char*>(out->dl_tensor.data) + out->dl_tensor.byte_offset;
  EXPECT_EQ(pointer, t.data_ptr());
  Tensor back = lazy::from_dlpack(out);
  EXPECT_EQ(back.data_ptr(), t.data_ptr());
  EXPECT_EQ(back.strides(), t.strides());
  EXPECT_EQ((back * 2.0f).to(DType::f32).to_vector<float>(),
            (t * 2.0f).to(DType::f32).to_vector<float>());
}

TEST_F(GpuInterop, MemoryGivenOutStaysWhileTheConsumerHoldsIt) {
  constexpr std::int64_t kCount = 1 << 20;
  Tensor t = lazy_test::random_input(DType::f32, {kCount}) * 3.0f;
  const std::vector<float> expected = t.to_vector<float>();
  DLManagedTensor* out = lazy::to_dlpack(t);
  t = Tensor();
  lazy::wait();
  // Allocations of the same size would take its memory, were it freed.
  for (int k = 0; k < 4; ++k) lazy::eval({lazy::ones({kCount}) + float(k)});
  const auto address =
      reinterpret_cast<CUdeviceptr>(out->dl_tensor.data) + out->dl_tensor.byte_offset;
  EXPECT_EQ(read(address, std::size_t(kCount)), expected) << "freed while the consumer held it";
  out->deleter(out);
}

// Found in review: memory given out, read by a consumer on the legacy default stream behind slow
// work, and let go while lazyfuse still held it, was then written over in place before the
// consumer's read had run.
TEST_F(GpuInterop, MemoryGivenOutIsNotWrittenOverUntilTheConsumersReadsAreDone) {
  constexpr std::int64_t kCount = 1 << 20;
  Tensor warm = lazy_test::random_input(DType::f32, {kCount});
  lazy::eval({warm * 2.0f});  // compiled now, so that no compile delays the update below
  Tensor t = lazy_test::random_input(DType::f32, {kCount});
  const std::vector<float> expected = t.to_vector<float>();
  DLManagedTensor* out = lazy::to_dlpack(t);
  const auto copy = slow_consumer_copy(
      reinterpret_cast<CUdeviceptr>(out->dl_tensor.data) + out->dl_tensor.byte_offset,
      std::size_t(kCount));
  out->deleter(out);  // the consumer lets go; its copy is still queued
  t = t * 2.0f;
  lazy::eval({t});
  device_->synchronize_all();  // the consumer's copy, on the legacy stream, too
  EXPECT_EQ(read(copy->ptr(), std::size_t(kCount)), expected)
      << "the consumer's copy saw lazyfuse's later write";
}

// Found in review: the memory data_ptr gives out was written over in place by the next update
// while the consumer's copy of it was still queued on its own stream.
TEST_F(GpuInterop, MemoryGivenOutByDataPtrIsNotWrittenOverInPlace) {
  constexpr std::int64_t kCount = 1 << 20;
  Tensor warm = lazy_test::random_input(DType::f32, {kCount});
  lazy::eval({warm * 2.0f});  // compiled now, so that no compile delays the update below
  Tensor t = lazy_test::random_input(DType::f32, {kCount});
  const std::vector<float> expected = t.to_vector<float>();
  const auto copy =
      slow_consumer_copy(reinterpret_cast<CUdeviceptr>(t.data_ptr()), std::size_t(kCount));
  const std::int64_t updates = lazy::stats().in_place_updates;
  t = t * 2.0f;
  lazy::eval({t});
  EXPECT_EQ(lazy::stats().in_place_updates, updates);
  device_->synchronize_all();
  EXPECT_EQ(read(copy->ptr(), std::size_t(kCount)), expected)
      << "the consumer's copy saw lazyfuse's later write";
}

// Found in review: memory taken in 4 bytes past an aligned address (what PyTorch gives out for
// t[1:]) replayed the plan of an aligned input of the same shape, whose 16-byte loads fault on it.
TEST_F(GpuInterop, MemoryTakenInOffTheAlignmentOfThePoolIsReadWithLoadsItAllows) {
  constexpr std::int64_t kCount = 1 << 24;  // long enough for vector loads
  std::vector<float> values(std::size_t(kCount) + 4);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i % 1000) * 0.25f;
  auto memory = device_->allocate(values.size() * 4);
  device_->copy_to_device(memory->ptr(), values.data(), values.size() * 4);
  device_->synchronize();
  const auto step = [](const Tensor& x) { return (x * 0.5f + 1.0f).to_vector<float>(); };
  for (std::size_t skip : {0, 1, 2, 3}) {
    Tensor x = lazy::from_blob(reinterpret_cast<void*>(memory->ptr() + skip * 4), {kCount}, {},
                               DType::f32, lazy::MemoryKind::cuda);
    const std::vector<float> got = step(x);
    ASSERT_EQ(got.size(), std::size_t(kCount));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != values[i + skip] * 0.5f + 1.0f;
    EXPECT_EQ(wrong, 0u) << "skip " << skip;
  }
}

TEST_F(GpuInterop, ASyncOnABoundStreamStartsAfterTheCallersProducer) {
  constexpr std::size_t kCount = 1 << 16;
  auto memory = device_->allocate(kCount * 4);
  device_->fill_bytes(memory->ptr(), 0, kCount * 4);
  device_->synchronize();
  spin_on_caller();
  // Every byte 0x40: the float 0x40404040, about 3.01.
  ASSERT_EQ(driver_->cuMemsetD8Async(memory->ptr(), 0x40, kCount * 4, caller_), CUDA_SUCCESS);
  const std::uint32_t bits = 0x40404040u;
  float written;
  std::memcpy(&written, &bits, 4);
  lazy::StreamGuard bound(caller_);
  EXPECT_EQ(lazy::get_stream(), caller_);
  Tensor x = lazy::from_blob(reinterpret_cast<void*>(memory->ptr()), {kCount}, {}, DType::f32,
                             lazy::MemoryKind::cuda);
  const std::vector<float> doubled = (x * 2.0f).to_vector<float>();
  EXPECT_EQ(doubled, std::vector<float>(kCount, 2.0f * written))
      << "the sync read the memory before the producer on the caller's stream wrote it";
}

// With no stream bound, memory taken in is read after what the legacy default stream (PyTorch's
// default) queued before: lazyfuse's own streams do not synchronize with it by themselves.
TEST_F(GpuInterop, WithNoStreamBoundAProducerOnTheLegacyDefaultStreamIsWaitedFor) {
  constexpr std::size_t kCount = 1 << 16;
  auto memory = device_->allocate(kCount * 4);
  device_->fill_bytes(memory->ptr(), 0, kCount * 4);
  device_->synchronize();
  ASSERT_EQ(lazy::get_stream(), nullptr);
  const auto doubled_now = [&] {
    Tensor x = lazy::from_blob(reinterpret_cast<void*>(memory->ptr()), {kCount}, {}, DType::f32,
                               lazy::MemoryKind::cuda);
    return (x * 2.0f).to_vector<float>();
  };
  // The same step once before, so that the timed one is a plan hit launched at once, not a
  // compile that would outlast the producer.
  ASSERT_EQ(doubled_now(), std::vector<float>(kCount, 0.0f));
  spin_on(CU_STREAM_LEGACY);
  ASSERT_EQ(driver_->cuMemsetD8Async(memory->ptr(), 0x40, kCount * 4, CU_STREAM_LEGACY),
            CUDA_SUCCESS);
  const std::uint32_t bits = 0x40404040u;
  float written;
  std::memcpy(&written, &bits, 4);
  const std::vector<float> doubled = doubled_now();
  EXPECT_EQ(doubled, std::vector<float>(kCount, 2.0f * written))
      << "the sync read the memory before the producer on the legacy default stream wrote it";
}

TEST_F(GpuInterop, WorkOnABoundStreamAfterASyncSeesItsResults) {
  constexpr std::int64_t kCount = std::int64_t(1) << 24;
  auto copy = device_->allocate(std::size_t(kCount) * 4);
  lazy::set_stream(caller_);
  // Long enough (a chain of transcendental ops over 64 MiB) that an unordered copy starts early.
  Tensor y = lazy::arange(0, kCount, 1, DType::f32) * 1e-6f;
  for (int k = 0; k < 24; ++k) y = lazy::sin(y) + 0.5f;
  void* result = y.data_ptr();  // no host wait with a bound stream
  ASSERT_EQ(driver_->cuMemcpyDtoDAsync(copy->ptr(), reinterpret_cast<CUdeviceptr>(result),
                                       std::size_t(kCount) * 4, caller_),
            CUDA_SUCCESS);
  lazy::set_stream(nullptr);
  EXPECT_EQ(read(copy->ptr(), std::size_t(kCount)), y.to_vector<float>())
      << "the caller's copy ran before the sync's kernel finished";
}

}  // namespace
