#include "jit/shipped_kernels.h"

#include "codegen/kernel_builder.h"
#include "ir/settings.h"
#include "jit/cache_files.h"
#include "jit/kernel_cache.h"

namespace lazy::jit {

std::optional<std::vector<char>> find_shipped_kernel(const std::string& source, int arch,
                                                     const std::vector<std::string>& options) {
  if (shipped_kernels().empty() || !ir::on_off_setting(ir::Setting::shipped_kernels))
    return std::nullopt;
  const std::string text = codegen::without_op_places(source);
  std::optional<NvrtcVersion> hashed_for;  // entries of one build share a version: hash once
  ir::Hash128 key;
  std::string key_hex;
  for (const ShippedKernel& shipped : shipped_kernels()) {
    if (shipped.arch != arch) continue;
    if (hashed_for != shipped.nvrtc) {
      hashed_for = shipped.nvrtc;
      key = kernel_key(text, arch, options, shipped.nvrtc);
      key_hex = key.to_hex();
    }
    if (shipped.key != key_hex) continue;
    const CacheEntryParts entry = parse_cache_entry(shipped.entry, key);
    if (entry.rejected != nullptr || entry.text != text) return std::nullopt;
    shipped_kernel_hits()++;
    return std::vector<char>(entry.payload.begin(), entry.payload.end());
  }
  return std::nullopt;
}

std::atomic<std::int64_t>& shipped_kernel_hits() {
  static std::atomic<std::int64_t> hits{0};
  return hits;
}

}  // namespace lazy::jit
