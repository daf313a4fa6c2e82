#include "jit/kernel_cache.h"

#include <chrono>
#include <string>

#include "codegen/templates.h"
#include "ir/settings.h"
#include "jit/disk_cache.h"
#include "jit/nvrtc.h"
#include "jit/shipped_kernels.h"

namespace lazy::jit {

namespace {

std::size_t capacity_from_env() {
  return std::size_t(ir::integer_setting(ir::Setting::kernel_cache_entries));
}

// What decides the cubin besides the source: the options, NVRTC's version, the arch, the templates
// and the cache format, as text.
std::string compile_settings(int arch, const std::vector<std::string>& extra_options,
                             NvrtcVersion version) {
  static const std::string templates = codegen::templates_checksum().to_hex();
  std::string settings;
  for (const std::string& option : nvrtc_compile_options(arch, extra_options)) {
    settings.push_back('\0');
    settings.append(option);
  }
  settings.push_back('\0');
  settings.append(std::to_string(version.major) + "." + std::to_string(version.minor) + "/sm_" +
                  std::to_string(arch) + "/" + templates + "/format " +
                  std::to_string(kDiskCacheFormat));
  return settings;
}

ir::Hash128 key_of(const std::string& source, int arch,
                   const std::vector<std::string>& extra_options,
                   const std::optional<ir::Hash128>& source_hash, NvrtcVersion version) {
  // The source's hash followed by the compile settings: a cached text's kernel comes with the
  // hash of its source (tens of kilobytes for a row kernel), which is then not read again. The
  // settings' text is kept from the thread's last key, since a plan's kernels share it: writing
  // it out was a third of a plan miss's kernel lookups.
  struct LastSettings {
    int arch = -1;
    NvrtcVersion version{};
    std::vector<std::string> extra_options;
    std::string text;
  };
  thread_local LastSettings last;
  if (last.arch != arch || last.version != version || last.extra_options != extra_options) {
    last = {arch, version, extra_options, compile_settings(arch, extra_options, version)};
  }
  const ir::Hash128 text =
      source_hash ? *source_hash : ir::hash_bytes(source.data(), source.size());
  return ir::hash_bytes({reinterpret_cast<const char*>(&text), sizeof(text)}, last.text);
}

// The key with the NVRTC loaded now.
ir::Hash128 current_key(const std::string& source, int arch,
                        const std::vector<std::string>& extra_options,
                        const std::optional<ir::Hash128>& source_hash = std::nullopt) {
  static const NvrtcVersion version = nvrtc_version();
  return key_of(source, arch, extra_options, source_hash, version);
}

}  // namespace

ir::Hash128 kernel_key(const std::string& source, int arch, const std::vector<std::string>& options,
                       NvrtcVersion version) {
  return key_of(source, arch, options, std::nullopt, version);
}

std::vector<char> compile_kernel_source(const std::string& source, const std::string& name,
                                        int arch, const std::vector<std::string>& options) {
  std::vector<InMemoryHeader> headers;
  for (const codegen::EmbeddedTemplate& t : codegen::embedded_templates())
    headers.push_back({t.name, t.text});
  return compile_to_cubin(source, name, arch, options, headers);
}

KernelCache& KernelCache::instance() {
  static KernelCache* cache = new KernelCache();  // never destroyed: used until exit
  return *cache;
}

KernelCache::KernelCache() : entries_(capacity_from_env()) {}

std::optional<KernelCache::Lookup> KernelCache::find(
    const std::string& source, int arch, const std::vector<std::string>& options,
    const std::optional<ir::Hash128>& source_hash) {
  const ir::Hash128 key = current_key(source, arch, options, source_hash);
  {
    std::lock_guard lock(mutex_);
    if (auto* found = entries_.find(key);
        found != nullptr && (*found)->source == source && (*found)->options == options) {
      return Lookup{*found, Origin::memory, 0.0};
    }
  }
  Origin origin = Origin::disk;
  std::optional<std::vector<char>> cubin = disk_cache().load(key, source, nvrtc_version(), arch);
  if (!cubin) {
    origin = Origin::shipped;
    cubin = find_shipped_kernel(source, arch, options);
  }
  if (!cubin) return std::nullopt;
  auto kernel =
      std::make_shared<CompiledKernel>(CompiledKernel{key, "", source, options, std::move(*cubin)});
  std::lock_guard lock(mutex_);
  entries_.insert(key, kernel);
  return Lookup{kernel, origin, 0.0};
}

KernelCache::Lookup KernelCache::get_or_compile(const std::string& name, const std::string& source,
                                                int arch, const std::vector<std::string>& options) {
  if (std::optional<Lookup> found = find(source, arch, options)) return *found;
  return compile_and_store(current_key(source, arch, options), name, source, arch, options);
}

KernelCache::Lookup KernelCache::compile(const std::string& name, const std::string& source,
                                         int arch, const std::vector<std::string>& options) {
  return compile_and_store(current_key(source, arch, options), name, source, arch, options);
}

KernelCache::Lookup KernelCache::add_compiled(const std::string& name, const std::string& source,
                                              int arch, const std::vector<std::string>& options,
                                              std::vector<char> cubin, double compile_seconds) {
  const ir::Hash128 key = current_key(source, arch, options);
  disk_cache().store(key, source, cubin, nvrtc_version(), arch);
  auto kernel = std::make_shared<CompiledKernel>(
      CompiledKernel{key, name, source, options, std::move(cubin)});
  std::lock_guard lock(mutex_);
  entries_.insert(key, kernel);
  return {kernel, Origin::nvrtc, compile_seconds};
}

KernelCache::Lookup KernelCache::recompile(const std::string& name, const std::string& source,
                                           int arch, const std::vector<std::string>& options) {
  const ir::Hash128 key = current_key(source, arch, options);
  disk_cache().reject(key, nvrtc_version(), arch);
  return compile_and_store(key, name, source, arch, options);
}

KernelCache::Lookup KernelCache::compile_and_store(const ir::Hash128& key, const std::string& name,
                                                   const std::string& source, int arch,
                                                   const std::vector<std::string>& options) {
  auto start = std::chrono::steady_clock::now();
  std::vector<char> cubin = compile_kernel_source(source, name, arch, options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  disk_cache().store(key, source, cubin, nvrtc_version(), arch);
  auto kernel = std::make_shared<CompiledKernel>(
      CompiledKernel{key, name, source, options, std::move(cubin)});
  std::lock_guard lock(mutex_);
  entries_.insert(key, kernel);
  return {kernel, Origin::nvrtc, seconds};
}

std::size_t KernelCache::size() {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

void KernelCache::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

}  // namespace lazy::jit
