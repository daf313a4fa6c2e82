#include "runtime/device.h"

#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>

#include <absl/strings/ascii.h>

#include "ir/settings.h"
#include "jit/nvrtc_warm_up.h"
#include "lazy/error.h"
#include "runtime/compile_scheduler.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_failures.h"
#include "runtime/packed_args.h"

namespace lazy::runtime {
namespace {

// Freed memory stays in the pool for the next allocation instead of going back to the driver:
// lazyfuse allocates the same sizes every step.
constexpr cuuint64_t kPoolReleaseThreshold = std::numeric_limits<cuuint64_t>::max();
// cuDeviceGetName truncates to this; device names are well under 100 characters.
constexpr int kDeviceNameCapacity = 256;
constexpr std::string_view kDeviceVariable = "LAZY_DEVICE";
constexpr std::string_view kValidDevices = "cpu, cuda, cuda:N (N a GPU ordinal, 0 first)";

// Images the driver accepts: an ELF CUBIN, or a fatbinary.
constexpr unsigned char kElfMagic[] = {0x7f, 'E', 'L', 'F'};
constexpr unsigned char kFatbinMagic[] = {0x50, 0xed, 0x55, 0xba};

// Set by an exit handler registered after cuInit, so it runs before the driver tears down:
// frees and destroys after it are skipped, the process is ending anyway.
std::atomic<bool> g_process_exiting{false};

void mark_process_exiting() {
  g_process_exiting.store(true, std::memory_order_relaxed);
}

// Where LAZY_DEVICE and the machine say to compute: a GPU when driver is set, else the host.
struct DeviceSelection {
  const CudaDriver* driver = nullptr;
  int ordinal = 0;
  std::string why_host;
  bool gpu_asked = false;  // LAZY_DEVICE named a GPU: the host is no stand-in for it
};

int attribute(const CudaDriver& driver, CUdevice_attribute which, CUdevice device,
              std::string_view what) {
  int value = 0;
  check_cuda(driver.cuDeviceGetAttribute(&value, which, device), what);
  return value;
}

// LAZY_SYNC_LAUNCHES, or CUDA_LAUNCH_BLOCKING=1 (the driver's own switch, which a user may
// already know): wait for every launch, so a fault is reported by the kernel that made it.
bool sync_launches_from_env() {
  const char* blocking = ir::foreign_variable(ir::ForeignVariable::cuda_launch_blocking);
  return ir::on_off_setting(ir::Setting::sync_launches) ||
         (blocking != nullptr && std::string_view(blocking) == "1");
}

bool starts_with(std::span<const char> image, std::span<const unsigned char> magic) {
  return image.size() >= magic.size() && std::memcmp(image.data(), magic.data(), magic.size()) == 0;
}

}  // namespace

std::optional<DeviceSpec> parse_device_spec(std::string_view text) {
  if (text == "cpu") return DeviceSpec{DeviceSpec::Kind::kHost, 0};
  if (text == "cuda") return DeviceSpec{DeviceSpec::Kind::kCuda, 0};
  constexpr std::string_view kCudaPrefix = "cuda:";
  if (!text.starts_with(kCudaPrefix)) return std::nullopt;
  const std::string_view digits = text.substr(kCudaPrefix.size());
  if (digits.empty() || digits.front() < '0' || digits.front() > '9') return std::nullopt;
  int ordinal = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return DeviceSpec{DeviceSpec::Kind::kCuda, ordinal};
}

DeviceSpec device_spec_from_env(const char* value) {
  if (value == nullptr) return DeviceSpec{};
  const absl::string_view stripped = absl::StripAsciiWhitespace(value);  // as other settings
  const std::string_view word(stripped.data(), stripped.size());
  if (word.empty()) return DeviceSpec{};
  if (std::optional<DeviceSpec> spec = parse_device_spec(word)) return *spec;
  throw RuntimeError(std::string(kDeviceVariable) + "='" + value +
                         "' names no device: valid values are " + std::string(kValidDevices),
                     std::source_location::current());
}

namespace {

DeviceSelection select_device() {
  const std::optional<std::string> variable = ir::text_setting(ir::Setting::device);
  const DeviceSpec spec = device_spec_from_env(variable ? variable->c_str() : nullptr);
  if (spec.kind == DeviceSpec::Kind::kHost) {
    return {nullptr, 0, std::string(kDeviceVariable) + "=cpu asks for it"};
  }
  const bool asked = variable.has_value() && !absl::StripAsciiWhitespace(*variable).empty();
  const CudaDriver* driver = cuda_driver();
  if (driver == nullptr) return {nullptr, 0, why_no_cuda_driver(), asked};
  int count = 0;
  check_cuda(driver->cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) return {nullptr, 0, "lazyfuse: the CUDA driver reports no GPU", asked};
  if (spec.ordinal >= count) {
    throw RuntimeError(std::string(kDeviceVariable) + "='" + variable.value_or("") +
                           "' names GPU " + std::to_string(spec.ordinal) +
                           ", but this machine has " + std::to_string(count) +
                           " (cuda:0 to cuda:" + std::to_string(count - 1) +
                           "); valid values are " + std::string(kValidDevices),
                       std::source_location::current());
  }
  return {driver, spec.ordinal, ""};
}

const DeviceSelection& device_selection() {
  static const DeviceSelection selection = select_device();
  return selection;
}

}  // namespace

Device* Device::get() {
  static Device* const device = []() -> Device* {
    const DeviceSelection& selection = device_selection();
    if (selection.driver == nullptr) return nullptr;
    std::atexit(mark_process_exiting);
    // NVRTC warms up alongside the context's creation, the longest part of init, and is done
    // before init returns: no compile may still run when the program ends. Compile workers
    // start too, and warm up in their own processes.
    std::jthread warm_up(jit::warm_up_nvrtc);
    start_compile_workers();
    // Never destroyed: buffers held by static objects may be freed until the process exits.
    return new Device(*selection.driver, selection.ordinal);
  }();
  return device;
}

std::string Device::why_host() {
  std::string why = device_selection().why_host;
  if (why.starts_with("lazyfuse: ")) why.erase(0, 10);  // the driver loader's messages carry it
  return why;
}

std::optional<std::string> Device::gpu_asked_for_in_vain() {
  const DeviceSelection& selection = device_selection();
  if (selection.driver != nullptr || !selection.gpu_asked) return std::nullopt;
  std::string why = why_host();
  while (!why.empty() && why.back() == '.') why.pop_back();
  return std::string(kDeviceVariable) + "='" + ir::text_setting(ir::Setting::device).value_or("") +
         "' asks for a GPU, but there is none usable: " + why + ". Set " +
         std::string(kDeviceVariable) + "=cpu to compute on the host, or unset it to use a GPU " +
         "when there is one and the host otherwise";
}

Device::Device(const CudaDriver& driver, int ordinal) : driver_(driver), ordinal_(ordinal) {
  CUdevice device = 0;
  check_cuda(driver_.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  cu_device_ = device;

  char name[kDeviceNameCapacity] = {};
  check_cuda(driver_.cuDeviceGetName(name, kDeviceNameCapacity, device), "cuDeviceGetName");
  name_ = name;
  description_ = "GPU " + std::to_string(ordinal) + " (" + name_ + ")";
  failures_ = std::make_unique<DeviceFailures>(description_);
  sync_launches_ = sync_launches_from_env();
  sm_arch_ = 10 * attribute(driver_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device,
                            "compute capability major") +
             attribute(driver_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device,
                       "compute capability minor");
  multiprocessor_count_ =
      attribute(driver_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device, "multiprocessor count");
  check_cuda(driver_.cuDeviceTotalMem(&total_memory_, device), "cuDeviceTotalMem");
  if (attribute(driver_, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device,
                "memory pool support") == 0) {
    throw RuntimeError("GPU " + std::to_string(ordinal) + " (" + name_ +
                           ") has no stream-ordered memory pools, which lazyfuse needs",
                       std::source_location::current());
  }

  check_cuda(driver_.cuDevicePrimaryCtxRetain(&context_, device), "cuDevicePrimaryCtxRetain");
  check_cuda(driver_.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
  CUmemPoolProps pool_props{};
  pool_props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  pool_props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  pool_props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  pool_props.location.id = device;
  check_cuda(driver_.cuMemPoolCreate(&pool_, &pool_props), "cuMemPoolCreate");
  cuuint64_t threshold = kPoolReleaseThreshold;
  check_cuda(driver_.cuMemPoolSetAttribute(pool_, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold),
             "cuMemPoolSetAttribute(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)");
  // The pool's first allocation sets the driver's allocator up (about 7 ms on an H100): part of
  // initialising the device, not of the program's first sync. It gives this thread its stream,
  // which holds the device, so it must not throw: a GPU already full reports at the program's
  // first allocation, and LAZY_MEMORY_LIMIT applies after it (a limit under 256 bytes refused
  // this one and left the stream pointing at a device never made).
  try {
    allocate(1).reset();
  } catch (const OutOfDeviceMemory&) {
  }
  limit_ = ir::integer_setting(ir::Setting::memory_limit);
}

Device::~Device() = default;

// Asks the driver rather than trusting a per-thread flag: other code on the thread (a framework
// sharing the process) may have switched contexts. cuCtxGetCurrent only reads thread state.
void Device::make_current() {
  failures_->check_usable();
  CUcontext current = nullptr;
  failures_->check(driver_.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != context_) failures_->check(driver_.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

DeviceBuffer::~DeviceBuffer() {
  if (written_ != nullptr) device_->destroy_event(written_);
  if (!give_back_) {
    // A consumer given this memory may still be reading it on its own streams.
    if (read_elsewhere_ && device_->current_for_teardown()) {
      try {
        device_->wait_for_consumers(this);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "%s\n", error.what());
      }
    }
    device_->release(ptr_, bytes_, *home_);
    return;
  }
  // The producer may reuse its memory at once: lazyfuse's queued reads of it must be done, or
  // come before what the caller's stream does next.
  try {
    if (device_->current_for_teardown() &&
        !(home_ == &device_->current_stream() && device_->make_caller_wait())) {
      device_->failures_->check(device_->driver_.cuStreamSynchronize(home_->stream),
                                "cuStreamSynchronize before giving adopted memory back");
    }
    give_back_();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
  }
}

void Device::copy_to_device(CUdeviceptr dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  make_current();
  const std::uint64_t mark = failures_->launches().mark();
  DeviceStream& here = current_stream();
  failures_->check(driver_.cuMemcpyHtoDAsync(dst, src, bytes, here.stream), "cuMemcpyHtoDAsync");
  wait_for(here, mark, "cuStreamSynchronize after cuMemcpyHtoDAsync");
}

void Device::copy_to_host(void* dst, CUdeviceptr src, std::size_t bytes) {
  if (bytes == 0) return;
  make_current();
  const std::uint64_t mark = failures_->launches().mark();
  DeviceStream& here = current_stream();
  const bool staged = bytes <= kPinnedStagingBytes;
  if (staged && here.pinned_staging == nullptr) {
    failures_->check(driver_.cuMemHostAlloc(&here.pinned_staging, kPinnedStagingBytes, 0),
                     "cuMemHostAlloc of a staging buffer");
  }
  failures_->check(
      driver_.cuMemcpyDtoHAsync(staged ? here.pinned_staging : dst, src, bytes, here.stream),
      "cuMemcpyDtoHAsync");
  wait_for(here, mark, "cuStreamSynchronize after cuMemcpyDtoHAsync");
  if (staged) std::memcpy(dst, here.pinned_staging, bytes);
}

void Device::copy_device_to_device(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes) {
  if (bytes == 0) return;
  make_current();
  failures_->check(driver_.cuMemcpyDtoDAsync(dst, src, bytes, stream()), "cuMemcpyDtoDAsync");
}

void Device::fill_bytes(CUdeviceptr dst, std::uint8_t value, std::size_t bytes) {
  if (bytes == 0) return;
  make_current();
  failures_->check(driver_.cuMemsetD8Async(dst, value, bytes, stream()), "cuMemsetD8Async");
}

void Device::synchronize() {
  make_current();
  wait_for(current_stream(), failures_->launches().mark(), "cuStreamSynchronize");
}

void Device::wait_for(DeviceStream& here, std::uint64_t mark, std::string_view what) {
  failures_->check(driver_.cuStreamSynchronize(here.stream), what);
  failures_->launches().synchronized(mark);
  caught_up(here);
}

CUmodule Device::load_module(std::span<const char> cubin) {
  // The driver reads the image without a size; anything but ELF or fatbin it would parse as
  // NUL-terminated PTX text, possibly past the end of the buffer.
  if (!starts_with(cubin, kElfMagic) && !starts_with(cubin, kFatbinMagic)) {
    throw RuntimeError("cuModuleLoadData: the " + std::to_string(cubin.size()) +
                           "-byte image is neither an ELF CUBIN nor a fatbinary",
                       std::source_location::current());
  }
  make_current();
  CUmodule module = nullptr;
  if (const CUresult result = driver_.cuModuleLoadData(&module, cubin.data());
      result != CUDA_SUCCESS) {
    failures_->fail(result, "cuModuleLoadData of a " + std::to_string(cubin.size()) +
                                "-byte image on " + name_ + " (sm_" + std::to_string(sm_arch_) +
                                ")");
  }
  return module;
}

void Device::unload_module(CUmodule module) {
  if (module == nullptr || g_process_exiting.load(std::memory_order_relaxed)) return;
  make_current();
  failures_->check(driver_.cuModuleUnload(module), "cuModuleUnload");
}

CUfunction Device::get_function(CUmodule module, const char* name) {
  make_current();
  CUfunction function = nullptr;
  if (const CUresult result = driver_.cuModuleGetFunction(&function, module, name);
      result != CUDA_SUCCESS) {
    failures_->fail(result, std::string("cuModuleGetFunction(\"") + name + "\")");
  }
  return function;
}

FunctionInfo Device::function_info(CUfunction function) {
  make_current();
  auto get = [&](CUfunction_attribute which, const char* what) {
    int value = 0;
    failures_->check(driver_.cuFuncGetAttribute(&value, which, function), what);
    return value;
  };
  return FunctionInfo{
      get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)"),
      get(CU_FUNC_ATTRIBUTE_NUM_REGS, "cuFuncGetAttribute(NUM_REGS)"),
      get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "cuFuncGetAttribute(SHARED_SIZE_BYTES)"),
      get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "cuFuncGetAttribute(LOCAL_SIZE_BYTES)")};
}

bool Device::current_for_teardown() noexcept {
  if (g_process_exiting.load(std::memory_order_relaxed) || failures_->lost()) return false;
  try {
    make_current();
    return true;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return false;
  }
}

bool Device::context_lost() const {
  return failures_->lost();
}

void Device::label_kernel(CUfunction function, KernelLabel label) {
  failures_->launches().label(function, std::move(label));
}

bool Device::kernel_labelled(CUfunction function) const {
  return failures_->launches().labelled(function);
}

void Device::launch(CUfunction function, unsigned grid_x, unsigned block_x,
                    std::span<const std::byte> packed_args, unsigned dynamic_shared_bytes) {
  make_current();
  PackedArgs args(packed_args);
  if (const CUresult result =
          driver_.cuLaunchKernel(function, grid_x, 1, 1, block_x, 1, 1, dynamic_shared_bytes,
                                 stream(), nullptr, args.extra());
      result != CUDA_SUCCESS) {
    failures_->fail(result, "cuLaunchKernel of " + failures_->launches().label_of(function).text +
                                " (grid " + std::to_string(grid_x) + ", block " +
                                std::to_string(block_x) + ", " + std::to_string(args.size()) +
                                " bytes of arguments)");
  }
  failures_->launches().record(function);
  if (sync_launches_) synchronize();
}

DeviceTimer::DeviceTimer(Device& device) : device_(device) {
  device_.make_current();
  device_.failures_->check(device_.driver_.cuEventCreate(&start_, CU_EVENT_DEFAULT),
                           "cuEventCreate");
  const CUresult stop_result = device_.driver_.cuEventCreate(&stop_, CU_EVENT_DEFAULT);
  if (stop_result != CUDA_SUCCESS) device_.driver_.cuEventDestroy(start_);
  device_.failures_->check(stop_result, "cuEventCreate");
}

DeviceTimer::~DeviceTimer() {
  if (!device_.current_for_teardown()) return;
  device_.driver_.cuEventDestroy(start_);
  device_.driver_.cuEventDestroy(stop_);
}

void DeviceTimer::start() {
  device_.make_current();
  device_.failures_->check(device_.driver_.cuEventRecord(start_, device_.stream()),
                           "cuEventRecord(start)");
}

void DeviceTimer::stop() {
  device_.make_current();
  device_.failures_->check(device_.driver_.cuEventRecord(stop_, device_.stream()),
                           "cuEventRecord(stop)");
}

float DeviceTimer::elapsed_ms() {
  device_.make_current();
  device_.failures_->check(device_.driver_.cuEventSynchronize(stop_), "cuEventSynchronize");
  float milliseconds = 0.0f;
  device_.failures_->check(device_.driver_.cuEventElapsedTime(&milliseconds, start_, stop_),
                           "cuEventElapsedTime");
  return milliseconds;
}

}  // namespace lazy::runtime
