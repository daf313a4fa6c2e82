// lazy/config.h: settings read from the environment once, changeable from code.
#include <atomic>
#include <cstdlib>
#include <string_view>

#include "lazy/config.h"
#include "runtime/device.h"

namespace lazy {

namespace {

constexpr int kUnread = -1;
std::atomic<int> fusion_setting{kUnread};
std::atomic<int> fast_math_setting{kUnread};

// "0" turns a setting off, any other value on; unset keeps the default.
bool read_setting(std::atomic<int>& setting, const char* variable, bool default_value) {
  int value = setting.load();
  if (value == kUnread) {
    const char* env = std::getenv(variable);
    value = env == nullptr ? int(default_value) : int(std::string_view(env) != "0");
    setting = value;
  }
  return value == 1;
}

}  // namespace

void set_fusion_enabled(bool enabled) {
  fusion_setting = int(enabled);
}
bool fusion_enabled() {
  return read_setting(fusion_setting, "LAZY_FUSION", true);
}

void set_fast_math(bool enabled) {
  fast_math_setting = int(enabled);
}
bool fast_math() {
  return read_setting(fast_math_setting, "LAZY_FAST_MATH", false);
}

bool on_gpu() {
  return runtime::Device::get() != nullptr;
}

std::string device_description() {
  runtime::Device* device = runtime::Device::get();
  if (device == nullptr) {
    return "host (" + runtime::Device::why_host() + ")";
  }
  return device->name() + " (sm_" + std::to_string(device->sm_arch()) + ")";
}

}  // namespace lazy
