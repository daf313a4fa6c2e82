#include "runtime/cuda_driver.h"

#include <dlfcn.h>
#include <link.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lazy/error.h"

namespace lazy::runtime {
namespace {

// Stringizes after expansion, so cuda.h's version macros apply (cuEventDestroy_v2, ...).
#define LAZY_STRINGIZE_EXPANDED(name) LAZY_STRINGIZE_RAW(name)
#define LAZY_STRINGIZE_RAW(name) #name
#define LAZY_CUDA_DRIVER_SYMBOL(name) std::string_view(LAZY_STRINGIZE_EXPANDED(name)),

constexpr std::string_view kSymbolNames[] = {LAZY_CUDA_DRIVER_FUNCTIONS(LAZY_CUDA_DRIVER_SYMBOL)};

#undef LAZY_CUDA_DRIVER_SYMBOL

// What the loader found. `table` stays set when only cuInit failed, so errors can be named.
struct DriverState {
  std::optional<CudaDriver> table;
  bool usable = false;
  std::string why;
};

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string install_advice() {
  return "Install the NVIDIA driver (it provides libcuda.so.1) in a version that supports CUDA " +
         cuda_version_string(CUDA_VERSION) + " or newer. Until then lazyfuse computes on the host.";
}

std::string loaded_path(void* handle, const char* fallback) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    return map->l_name;
  }
  return fallback;
}

DriverState load_driver() {
  DriverState state;
  void* handle = nullptr;
  const char* opened_name = nullptr;
  std::string dlopen_errors;
  for (const char* name : kCudaDriverLibraryNames) {
    handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      opened_name = name;
      break;
    }
    const char* error = dlerror();
    dlopen_errors += std::string("\n  ") + (error != nullptr ? error : name);
  }
  if (handle == nullptr) {
    state.why = std::string(
                    "the CUDA driver library libcuda.so.1 (also tried libcuda.so) was not "
                    "found on the dynamic loader's search path (LD_LIBRARY_PATH, "
                    "/etc/ld.so.cache, /lib, /usr/lib):") +
                dlopen_errors + "\n" + install_advice();
    return state;
  }
  const std::string path = loaded_path(handle, opened_name);

  CudaDriver table;
  std::string missing;
#define LAZY_CUDA_DRIVER_RESOLVE(name)                                                      \
  table.name =                                                                              \
      reinterpret_cast<decltype(table.name)>(dlsym(handle, LAZY_STRINGIZE_EXPANDED(name))); \
  if (table.name == nullptr)                                                                \
    missing += std::string(missing.empty() ? "" : ", ") + LAZY_STRINGIZE_EXPANDED(name);
  LAZY_CUDA_DRIVER_FUNCTIONS(LAZY_CUDA_DRIVER_RESOLVE)
#undef LAZY_CUDA_DRIVER_RESOLVE

  if (!missing.empty()) {
    int version = 0;
    std::string found;
    if (table.cuDriverGetVersion != nullptr && table.cuDriverGetVersion(&version) == CUDA_SUCCESS) {
      found = " (it supports CUDA " + cuda_version_string(version) + ")";
    }
    state.why = "the CUDA driver " + path + found + " lacks functions lazyfuse needs: " + missing +
                ". The driver is older than the CUDA " + cuda_version_string(CUDA_VERSION) +
                " headers lazyfuse was built with.\n" + install_advice();
    dlclose(handle);
    return state;
  }

  state.table = table;
  const CUresult init = table.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    const char* description = nullptr;
    table.cuGetErrorName(init, &name);
    table.cuGetErrorString(init, &description);
    state.why = "the CUDA driver " + path + " loaded, but cuInit failed with " +
                (name != nullptr ? name : std::to_string(int(init))) + " (" +
                (description != nullptr ? description : "no description") +
                "): no usable GPU, or a driver that does not match its kernel module.";
    if (init == CUDA_ERROR_STUB_LIBRARY) {
      state.why +=
          " This is the toolkit's stub library: put the real driver's libcuda.so.1 "
          "first on the loader's path.";
    }
    return state;
  }
  state.usable = true;
  return state;
}

const DriverState& driver_state() {
  static const DriverState state = load_driver();
  return state;
}

}  // namespace

bool cuda_driver_available() {
  return driver_state().usable;
}

std::string why_no_cuda_driver() {
  const DriverState& state = driver_state();
  return state.usable ? std::string() : "lazyfuse: " + state.why;
}

std::span<const std::string_view> cuda_driver_symbol_names() {
  return kSymbolNames;
}

const CudaDriver* cuda_driver() {
  const DriverState& state = driver_state();
  return state.usable ? &*state.table : nullptr;
}

#define LAZY_STICKY_ERROR(code) \
  { code, #code }
constexpr std::pair<CUresult, std::string_view> kStickyErrors[] = {
    LAZY_STICKY_ERROR(CUDA_ERROR_ILLEGAL_ADDRESS),
    LAZY_STICKY_ERROR(CUDA_ERROR_LAUNCH_FAILED),
    LAZY_STICKY_ERROR(CUDA_ERROR_ILLEGAL_INSTRUCTION),
    LAZY_STICKY_ERROR(CUDA_ERROR_MISALIGNED_ADDRESS),
    LAZY_STICKY_ERROR(CUDA_ERROR_INVALID_ADDRESS_SPACE),
    LAZY_STICKY_ERROR(CUDA_ERROR_INVALID_PC),
    LAZY_STICKY_ERROR(CUDA_ERROR_HARDWARE_STACK_ERROR),
    LAZY_STICKY_ERROR(CUDA_ERROR_ASSERT),
    LAZY_STICKY_ERROR(CUDA_ERROR_LAUNCH_TIMEOUT),
    LAZY_STICKY_ERROR(CUDA_ERROR_TENSOR_MEMORY_LEAK),
    LAZY_STICKY_ERROR(CUDA_ERROR_ECC_UNCORRECTABLE),
    LAZY_STICKY_ERROR(CUDA_ERROR_CONTAINED),
    LAZY_STICKY_ERROR(CUDA_ERROR_EXTERNAL_DEVICE),
};
#undef LAZY_STICKY_ERROR

bool is_sticky_cuda_error(CUresult result) {
  return !sticky_cuda_error_name(result).empty();
}

std::string_view sticky_cuda_error_name(CUresult result) {
  for (const auto& [code, name] : kStickyErrors)
    if (code == result) return name;
  return {};
}

std::string cuda_error_name(CUresult result) {
  const char* name = nullptr;
  if (const DriverState& state = driver_state(); state.table)
    state.table->cuGetErrorName(result, &name);
  if (name != nullptr) return name;
  if (std::string_view sticky = sticky_cuda_error_name(result); !sticky.empty())
    return std::string(sticky);
  return "CUresult " + std::to_string(int(result));
}

std::string cuda_error_text(CUresult result) {
  std::string text = cuda_error_name(result);
  const char* description = nullptr;
  if (const DriverState& state = driver_state(); state.table) {
    state.table->cuGetErrorString(result, &description);
  }
  if (description != nullptr) text += std::string(" (") + description + ")";
  return text;
}

std::string describe_cuda_error(CUresult result, std::string_view what) {
  return std::string(what) + " failed: " + cuda_error_text(result);
}

void throw_cuda_error(CUresult result, std::string_view what, std::source_location where) {
  throw RuntimeError("lazyfuse: " + describe_cuda_error(result, what), where);
}

}  // namespace lazy::runtime
