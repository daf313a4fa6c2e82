// lazy/config.h: settings read from the environment once, changeable from code.
#include <atomic>

#include "ir/settings.h"
#include "lazy/config.h"
#include "runtime/device.h"

namespace lazy {

namespace {

constexpr int kUnread = -1;
std::atomic<int> fusion_setting{kUnread};
std::atomic<int> fast_math_setting{kUnread};

// The environment's value until code sets one.
bool read_setting(std::atomic<int>& setting, ir::Setting variable) {
  int value = setting.load();
  if (value == kUnread) {
    // Only over the unread mark: a set_* call racing this first read keeps its value.
    const int from_environment = int(ir::on_off_setting(variable));
    if (setting.compare_exchange_strong(value, from_environment)) value = from_environment;
  }
  return value == 1;
}

}  // namespace

void set_fusion_enabled(bool enabled) {
  fusion_setting = int(enabled);
}
bool fusion_enabled() {
  return read_setting(fusion_setting, ir::Setting::fusion);
}

void set_fast_math(bool enabled) {
  fast_math_setting = int(enabled);
}
bool fast_math() {
  return read_setting(fast_math_setting, ir::Setting::fast_math);
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
