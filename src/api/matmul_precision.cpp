// lazy::set_matmul_precision: whether f32 products may use TF32 tensor cores. Process-wide, as
// torch.backends.cuda.matmul.allow_tf32; LAZY_MATMUL_TF32 gives the value until code sets one.
// Products read it when they are recorded (it is part of the MatMul node), not at the sync.
#include <atomic>

#include "api/matrix_product.h"
#include "api/recording.h"
#include "ir/settings.h"
#include "lazy/linalg.h"

namespace lazy {

namespace {

constexpr int kUnread = -1;
std::atomic<int> tf32_setting{kUnread};

}  // namespace

bool api::matmul_tf32() {
  int value = tf32_setting.load();
  if (value == kUnread) {
    value = int(ir::on_off_setting(ir::Setting::matmul_tf32));
    // A value set by code meanwhile wins over the environment's.
    int expected = kUnread;
    if (!tf32_setting.compare_exchange_strong(expected, value)) value = expected;
  }
  return value == 1;
}

void set_matmul_precision(std::string_view precision, std::source_location loc) {
  if (precision == "highest" || precision == "ieee") {
    tf32_setting = 0;
  } else if (precision == "tf32" || precision == "high") {
    tf32_setting = 1;
  } else {
    api::fail<ValueError>(loc, "set_matmul_precision", "unknown precision \"", precision,
                          "\"; use \"highest\" (or \"ieee\": full FP32) or \"tf32\" (or "
                          "\"high\": TF32 tensor cores for f32 products)");
  }
}

std::string matmul_precision() {
  return api::matmul_tf32() ? "tf32" : "highest";
}

}  // namespace lazy
