// The runtime layer: the driver and NVRTC loaders, device selection, memory, modules, launches.
// Tests that need a GPU skip when Device::get() is nullptr, and say why.
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "jit/nvrtc.h"
#include "lazy/error.h"
#include "runtime/cuda_driver_status.h"
#include "runtime/device.h"

namespace lazy::runtime {
namespace {

using ::testing::HasSubstr;

constexpr int kTestArch = 90;  // H100; what lazyfuse compiles for without a GPU

constexpr const char* kAffineSource = R"(
extern "C" __global__ void affine(const float* x, float* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}

// Generated kernels convert with inline PTX instead of including cuda_bf16.h.
__device__ unsigned short f32_to_bf16(float value) {
  unsigned short bits;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return bits;
}

extern "C" __global__ void to_bf16(const float* x, unsigned short* y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = f32_to_bf16(x[i]);
}
)";

constexpr const char* kBrokenSource = R"(
extern "C" __global__ void broken(float* y) {
  y[0] = 1.0f  // missing semicolon
}
)";

bool is_elf(const std::vector<char>& image) {
  return image.size() >= 4 && std::memcmp(image.data(),
                                          "\x7f"
                                          "ELF",
                                          4) == 0;
}

std::vector<char> affine_cubin(int sm_arch) {
  return jit::compile_to_cubin(kAffineSource, "affine.cu", sm_arch);
}

// Kernel parameters as lazyfuse packs them: one 8-byte field each.
template <typename... Fields>
std::vector<std::byte> pack(Fields... fields) {
  static_assert(((sizeof(Fields) == 8) && ...));
  std::vector<std::byte> packed(8 * sizeof...(Fields));
  std::size_t offset = 0;
  ((std::memcpy(packed.data() + offset, &fields, 8), offset += 8), ...);
  return packed;
}

// Buffers in objects destroyed at exit, one made before the device and one after: neither may
// crash the process's exit (the test binary's exit status says so).
std::shared_ptr<DeviceBuffer> g_buffer_constructed_before_the_device;

#define LAZY_REQUIRE_DEVICE(device) \
  Device* device = Device::get();   \
  if (device == nullptr) GTEST_SKIP() << "no CUDA device: " << Device::why_host()

// ---- the driver loader ----

TEST(CudaDriverLoader, LooksUpTheHeadersVersionedSymbols) {
  const auto names = cuda_driver_symbol_names();
  auto has = [&](std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  EXPECT_TRUE(has("cuMemcpyHtoDAsync_v2"));
  EXPECT_TRUE(has("cuMemcpyDtoHAsync_v2"));
  EXPECT_TRUE(has("cuMemcpyDtoDAsync_v2"));
  EXPECT_TRUE(has("cuDeviceTotalMem_v2"));
  EXPECT_TRUE(has("cuDevicePrimaryCtxRelease_v2"));
  EXPECT_TRUE(has("cuEventDestroy_v2"));
  EXPECT_TRUE(has("cuMemAllocFromPoolAsync"));
  EXPECT_TRUE(has("cuLaunchKernel"));
  EXPECT_FALSE(has("cuMemcpyHtoDAsync"));
}

// The toolkit's stub libcuda exports the driver's whole interface: every name we look up must be
// in it, or a real driver would be refused.
TEST(CudaDriverLoader, EverySymbolExistsInTheToolkitsStubDriver) {
  const char* cuda_home = std::getenv("CUDA_HOME");
  const std::string stub =
      std::string(cuda_home != nullptr ? cuda_home : "/usr/local/cuda") + "/lib64/stubs/libcuda.so";
  struct stat file_status;
  if (stat(stub.c_str(), &file_status) != 0) GTEST_SKIP() << "no stub driver at " << stub;
  // Load the real driver first: the stub's soname is libcuda.so.1 too, and must not stand in.
  (void)cuda_driver_available();
  void* handle = dlopen(stub.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  for (std::string_view name : cuda_driver_symbol_names()) {
    EXPECT_NE(dlsym(handle, std::string(name).c_str()), nullptr) << name;
  }
  dlclose(handle);
}

TEST(CudaDriverLoader, ExplainsAMissingDriver) {
  if (cuda_driver_available()) GTEST_SKIP() << "a CUDA driver is installed";
  const std::string why = why_no_cuda_driver();
  EXPECT_THAT(why, HasSubstr("libcuda.so.1"));
  EXPECT_THAT(why, HasSubstr("NVIDIA driver"));
}

TEST(CudaDriverLoader, SaysNothingWhenTheDriverIsUsable) {
  if (!cuda_driver_available()) GTEST_SKIP() << why_no_cuda_driver();
  EXPECT_EQ(why_no_cuda_driver(), "");
}

// ---- device selection ----

TEST(DeviceSpecParsing, AcceptsCpuCudaAndCudaN) {
  EXPECT_EQ(parse_device_spec("cpu"), (DeviceSpec{DeviceSpec::Kind::kHost, 0}));
  EXPECT_EQ(parse_device_spec("cuda"), (DeviceSpec{DeviceSpec::Kind::kCuda, 0}));
  EXPECT_EQ(parse_device_spec("cuda:0"), (DeviceSpec{DeviceSpec::Kind::kCuda, 0}));
  EXPECT_EQ(parse_device_spec("cuda:3"), (DeviceSpec{DeviceSpec::Kind::kCuda, 3}));
  EXPECT_EQ(parse_device_spec("cuda:12"), (DeviceSpec{DeviceSpec::Kind::kCuda, 12}));
}

TEST(DeviceSpecParsing, RejectsEverythingElse) {
  for (const char* text : {"", "bogus", "CUDA", "gpu", "cuda:", "cuda:-1", "cuda:+1", "cuda:x",
                           "cuda:1x", " cuda", "cuda ", "cpu:0", "cuda:99999999999"}) {
    EXPECT_EQ(parse_device_spec(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(DeviceSpecFromEnv, UnsetOrEmptyMeansTheFirstGpuWhenThereIsOne) {
  EXPECT_EQ(device_spec_from_env(nullptr), (DeviceSpec{DeviceSpec::Kind::kCuda, 0}));
  EXPECT_EQ(device_spec_from_env(""), (DeviceSpec{DeviceSpec::Kind::kCuda, 0}));
  EXPECT_EQ(device_spec_from_env("cpu"), (DeviceSpec{DeviceSpec::Kind::kHost, 0}));
}

TEST(DeviceSpecFromEnv, BogusValueThrowsNamingTheVariableAndValidValues) {
  try {
    device_spec_from_env("bogus");
    FAIL() << "expected lazy::RuntimeError";
  } catch (const RuntimeError& error) {
    EXPECT_THAT(error.what(), HasSubstr("LAZY_DEVICE"));
    EXPECT_THAT(error.what(), HasSubstr("bogus"));
    EXPECT_THAT(error.what(), HasSubstr("cpu, cuda, cuda:N"));
  }
}

TEST(DeviceSelection, ComputesOnTheHostWithoutADriverAndSaysWhy) {
  if (cuda_driver_available()) GTEST_SKIP() << "a CUDA driver is installed";
  EXPECT_EQ(Device::get(), nullptr);
  EXPECT_THAT(Device::why_host(), HasSubstr("libcuda.so.1"));
}

// ---- NVRTC ----

TEST(Nvrtc, IsAvailableOnThisMachine) {
  std::string why;
  ASSERT_TRUE(jit::nvrtc_available(&why)) << why;
  EXPECT_GE(jit::nvrtc_version().major, 12);
}

TEST(Nvrtc, LooksInTheEnvironmentsToolkitsAndTheSystemLibraryDirectory) {
  const std::vector<std::string> candidates =
      jit::nvrtc_library_candidates("/opt/cuda-home", "/opt/cuda-path");
  auto position = [&](const std::string& candidate) {
    return std::find(candidates.begin(), candidates.end(), candidate) - candidates.begin();
  };
  const auto end = std::ptrdiff_t(candidates.size());
  ASSERT_LT(position("libnvrtc.so.13"), end);
  ASSERT_LT(position("/opt/cuda-home/lib64/libnvrtc.so.13"), end);
  ASSERT_LT(position("/opt/cuda-path/lib64/libnvrtc.so.13"), end);
  ASSERT_LT(position("/usr/local/cuda/lib64/libnvrtc.so.13"), end);
  ASSERT_LT(position("/usr/lib/x86_64-linux-gnu/libnvrtc.so.13"), end);
  ASSERT_LT(position("libnvrtc.so"), end);
  EXPECT_EQ(position("libnvrtc.so.13"), 0);
  EXPECT_LT(position("/opt/cuda-home/lib64/libnvrtc.so.13"),
            position("/usr/local/cuda/lib64/libnvrtc.so.13"));
  // The matching major version anywhere comes before an unversioned library.
  EXPECT_LT(position("/usr/lib/x86_64-linux-gnu/libnvrtc.so.13"), position("libnvrtc.so"));
}

TEST(Nvrtc, SkipsUnsetEnvironmentRoots) {
  const std::vector<std::string> candidates = jit::nvrtc_library_candidates(nullptr, "");
  for (const std::string& candidate : candidates) {
    EXPECT_NE(candidate.rfind("/lib64/", 0), 0u) << candidate;
  }
}

// Without fast math, no multiply and add are contracted into an fma (found in review: floor(x *
// 10 - 7) at x = 0.7f was -1 on the GPU); with it they may be.
TEST(Nvrtc, CompileOptionsAskForARealCubinInCxx17WithoutFastMath) {
  const std::vector<std::string> extra = {"-DTILE=4"};
  EXPECT_THAT(jit::nvrtc_compile_options(90, extra),
              ::testing::ElementsAre("--gpu-architecture=sm_90", "-std=c++17", "--minimal",
                                     "--no-cache", "--fmad=false", "-DTILE=4"));
  const std::vector<std::string> fast = {"--use_fast_math"};
  EXPECT_THAT(jit::nvrtc_compile_options(90, fast),
              ::testing::Not(::testing::Contains("--fmad=false")));
}

TEST(Nvrtc, CompilesInlinePtxBf16ConversionToAnSm90Cubin) {
  const std::vector<char> cubin = affine_cubin(kTestArch);
  EXPECT_TRUE(is_elf(cubin)) << "size " << cubin.size();
}

TEST(Nvrtc, PassesExtraOptions) {
  const std::vector<std::string> extra = {"-DLAZY_TEST_VALUE=3"};
  const std::vector<char> cubin = jit::compile_to_cubin(
      "static_assert(LAZY_TEST_VALUE == 3);\nextern \"C\" __global__ void k() {}\n", "extra.cu",
      kTestArch, extra);
  EXPECT_TRUE(is_elf(cubin));
}

TEST(Nvrtc, SyntaxErrorThrowsCompileErrorWithLogAndSource) {
  try {
    jit::compile_to_cubin(kBrokenSource, "broken.cu", kTestArch);
    FAIL() << "expected lazy::CompileError";
  } catch (const CompileError& error) {
    EXPECT_FALSE(error.log().empty());
    EXPECT_EQ(error.source(), kBrokenSource);
    EXPECT_THAT(error.what(), HasSubstr(error.log()));
    EXPECT_THAT(error.what(), HasSubstr("broken.cu"));
    EXPECT_THAT(error.what(), HasSubstr("LAZY_DEBUG=1"));
  }
}

TEST(Nvrtc, CompileErrorIsALazyError) {
  EXPECT_THROW(jit::compile_to_cubin(kBrokenSource, "broken.cu", kTestArch), Error);
}

TEST(Nvrtc, CompilesFromSeveralThreadsAtOnce) {
  constexpr int kThreads = 4;
  std::array<std::vector<char>, kThreads> cubins;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&cubins, i] { cubins[i] = affine_cubin(kTestArch); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::vector<char>& cubin : cubins) EXPECT_TRUE(is_elf(cubin));
}

// ---- with a GPU ----

TEST(DeviceOnGpu, ReportsItsProperties) {
  LAZY_REQUIRE_DEVICE(device);
  EXPECT_EQ(Device::why_host(), "");
  EXPECT_FALSE(device->name().empty());
  EXPECT_GE(device->sm_arch(), 70);
  EXPECT_GT(device->multiprocessor_count(), 0);
  EXPECT_GT(device->total_memory(), 0u);
  EXPECT_NE(device->stream(), nullptr);
  EXPECT_EQ(Device::get(), device);  // chosen once
}

TEST(DeviceOnGpu, FillBytesPoisonsMemory) {
  LAZY_REQUIRE_DEVICE(device);
  constexpr std::size_t kBytes = 4099;
  auto buffer = device->allocate(kBytes);
  ASSERT_NE(buffer->ptr(), 0u);
  EXPECT_EQ(buffer->bytes(), kBytes);
  device->fill_bytes(buffer->ptr(), 0xAB, kBytes);
  std::vector<std::uint8_t> host(kBytes, 0);
  device->copy_to_host(host.data(), buffer->ptr(), kBytes);
  EXPECT_TRUE(std::all_of(host.begin(), host.end(), [](std::uint8_t b) { return b == 0xAB; }));
}

TEST(DeviceOnGpu, RandomBytesSurviveARoundTrip) {
  LAZY_REQUIRE_DEVICE(device);
  constexpr std::size_t kBytes = (1 << 20) + 13;
  std::mt19937 generator(7);
  std::vector<std::uint8_t> original(kBytes);
  for (auto& byte : original) byte = std::uint8_t(generator());
  auto first = device->allocate(kBytes);
  auto second = device->allocate(kBytes);
  device->copy_to_device(first->ptr(), original.data(), kBytes);
  device->copy_device_to_device(second->ptr(), first->ptr(), kBytes);
  std::vector<std::uint8_t> back(kBytes, 0);
  device->copy_to_host(back.data(), second->ptr(), kBytes);
  EXPECT_EQ(back, original);
}

TEST(DeviceOnGpu, ReleasedBuffersAreFreed) {
  LAZY_REQUIRE_DEVICE(device);
  constexpr int kRounds = 1000;
  constexpr std::size_t kBytes = std::size_t(256) << 20;  // 250 GiB in all: more than any GPU
  for (int round = 0; round < kRounds; ++round) {
    auto buffer = device->allocate(kBytes);
    device->fill_bytes(buffer->ptr(), std::uint8_t(round), kBytes);
  }
  device->synchronize();
}

TEST(DeviceOnGpu, ZeroByteAllocationIsNullAndUsable) {
  LAZY_REQUIRE_DEVICE(device);
  auto empty = device->allocate(0);
  EXPECT_EQ(empty->ptr(), 0u);
  EXPECT_EQ(empty->bytes(), 0u);
  device->fill_bytes(empty->ptr(), 0, 0);
  device->copy_to_host(nullptr, empty->ptr(), 0);
}

TEST(DeviceOnGpu, LaunchesACompiledKernel) {
  LAZY_REQUIRE_DEVICE(device);
  constexpr long long kCount = 1000;
  constexpr unsigned kBlock = 128;
  const std::vector<char> cubin = affine_cubin(device->sm_arch());
  CUmodule module = device->load_module(cubin);
  CUfunction affine = device->get_function(module, "affine");
  EXPECT_GE(device->function_info(affine).max_threads_per_block, int(kBlock));

  std::vector<float> x(kCount);
  for (long long i = 0; i < kCount; ++i) x[i] = float(i) * 0.5f - 100.0f;
  auto x_buffer = device->allocate(kCount * sizeof(float));
  auto y_buffer = device->allocate(kCount * sizeof(float));
  device->copy_to_device(x_buffer->ptr(), x.data(), x_buffer->bytes());
  device->fill_bytes(y_buffer->ptr(), 0xFF, y_buffer->bytes());  // NaN unless written
  const auto args = pack(x_buffer->ptr(), y_buffer->ptr(), kCount);
  device->launch(affine, unsigned((kCount + kBlock - 1) / kBlock), kBlock, args);
  std::vector<float> y(kCount);
  device->copy_to_host(y.data(), y_buffer->ptr(), y_buffer->bytes());
  for (long long i = 0; i < kCount; ++i) ASSERT_EQ(y[i], 2.0f * x[i] + 1.0f) << "at " << i;
  device->unload_module(module);
}

TEST(DeviceOnGpu, InlinePtxBf16ConversionRoundsToNearestEven) {
  LAZY_REQUIRE_DEVICE(device);
  const std::vector<float> x = {1.0f,        -2.5f,    3.14159265f, 1.00390625f,
                                1.01171875f, 65504.0f, 1e-20f,      -0.0f};
  auto x_buffer = device->allocate(x.size() * sizeof(float));
  auto y_buffer = device->allocate(x.size() * sizeof(std::uint16_t));
  device->copy_to_device(x_buffer->ptr(), x.data(), x_buffer->bytes());
  CUmodule module = device->load_module(affine_cubin(device->sm_arch()));
  device->launch(device->get_function(module, "to_bf16"), 1, 32,
                 pack(x_buffer->ptr(), y_buffer->ptr(), (long long)x.size()));
  std::vector<std::uint16_t> y(x.size());
  device->copy_to_host(y.data(), y_buffer->ptr(), y_buffer->bytes());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x[i]);
    const std::uint32_t rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16;
    EXPECT_EQ(y[i], std::uint16_t(rounded)) << x[i];
  }
  device->unload_module(module);
}

TEST(DeviceOnGpu, LaunchOverZeroElementsWithEmptyBuffers) {
  LAZY_REQUIRE_DEVICE(device);
  CUmodule module = device->load_module(affine_cubin(device->sm_arch()));
  auto x_buffer = device->allocate(0);
  auto y_buffer = device->allocate(0);
  device->launch(device->get_function(module, "affine"), 1, 32,
                 pack(x_buffer->ptr(), y_buffer->ptr(), 0LL));
  device->synchronize();
  device->unload_module(module);
}

TEST(DeviceOnGpu, WorksFromAnotherThread) {
  LAZY_REQUIRE_DEVICE(device);
  constexpr std::size_t kBytes = 256;
  std::vector<std::uint8_t> host(kBytes, 0);
  std::thread worker([&] {
    auto buffer = device->allocate(kBytes);
    device->fill_bytes(buffer->ptr(), 0x5A, kBytes);
    device->copy_to_host(host.data(), buffer->ptr(), kBytes);
  });
  worker.join();
  EXPECT_TRUE(std::all_of(host.begin(), host.end(), [](std::uint8_t b) { return b == 0x5A; }));
}

TEST(DeviceOnGpu, BuffersHeldUntilExitAreSafe) {
  LAZY_REQUIRE_DEVICE(device);
  constexpr std::size_t kBytes = 1 << 20;
  static const std::shared_ptr<DeviceBuffer> constructed_after_the_device =
      device->allocate(kBytes);
  g_buffer_constructed_before_the_device = device->allocate(kBytes);
  EXPECT_NE(constructed_after_the_device->ptr(), 0u);
}

TEST(DeviceOnGpu, AllocationBeyondTheGpusMemoryThrowsRuntimeError) {
  LAZY_REQUIRE_DEVICE(device);
  try {
    device->allocate(std::size_t(1) << 50);
    FAIL() << "expected lazy::RuntimeError";
  } catch (const RuntimeError& error) {
    EXPECT_THAT(error.what(), HasSubstr("cuMemAllocFromPoolAsync"));
    EXPECT_THAT(error.what(), HasSubstr("CUDA_ERROR_OUT_OF_MEMORY"));
  }
  auto after = device->allocate(1024);  // the device is still usable
  device->synchronize();
}

TEST(DeviceOnGpu, LoadingGarbageThrowsRuntimeError) {
  LAZY_REQUIRE_DEVICE(device);
  const std::vector<char> garbage = {'n', 'o', 't', ' ', 'a', ' ', 'c', 'u', 'b', 'i', 'n'};
  EXPECT_THROW(device->load_module(garbage), RuntimeError);
}

TEST(DeviceOnGpu, LoadingACorruptElfThrowsTheDriversError) {
  LAZY_REQUIRE_DEVICE(device);
  constexpr std::size_t kImageBytes = 64 << 10;  // zeros past the magic: no valid ELF header
  std::vector<char> corrupt(kImageBytes, 0);
  std::memcpy(corrupt.data(),
              "\x7f"
              "ELF",
              4);
  try {
    device->load_module(corrupt);
    FAIL() << "expected lazy::RuntimeError";
  } catch (const RuntimeError& error) {
    EXPECT_THAT(error.what(), HasSubstr("cuModuleLoadData"));
    EXPECT_THAT(error.what(), HasSubstr("CUDA_ERROR_"));
  }
}

TEST(DeviceOnGpu, MissingKernelNameThrowsRuntimeError) {
  LAZY_REQUIRE_DEVICE(device);
  CUmodule module = device->load_module(affine_cubin(device->sm_arch()));
  EXPECT_THROW(device->get_function(module, "no_such_kernel"), RuntimeError);
  device->unload_module(module);
}

TEST(DeviceOnGpu, TimerMeasuresQueuedWork) {
  LAZY_REQUIRE_DEVICE(device);
  constexpr std::size_t kBytes = 256 << 20;
  auto buffer = device->allocate(kBytes);
  DeviceTimer timer(*device);
  timer.start();
  device->fill_bytes(buffer->ptr(), 1, kBytes);
  timer.stop();
  EXPECT_GT(timer.elapsed_ms(), 0.0f);
}

}  // namespace
}  // namespace lazy::runtime
