// lazyfuse-ship-kernels: compiles, at build time, the kernels the library ships
// (jit/shipped_kernels.h), and writes them as the C++ table the library is linked with.
//
//   lazyfuse-ship-kernels record <directory> <arch>   runs the programs below on the host, which
//       compiles their kernels for <arch> (sm_90) into a kernel cache in <directory>
//   lazyfuse-ship-kernels pack <output.cpp> <directory>...   what was recorded there, as a table
//
// The programs are what a program's first sync usually is: random inputs and parameters, alone
// or two of a shape at once, at sizes that give each width of thread group the pointwise
// skeleton picks (codegen/iteration_space.h), in every float dtype. The tool itself links
// tools/no_shipped_kernels.cpp, so it compiles every one of them.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "codegen/kernel_builder.h"
#include "jit/cache_files.h"
#include "jit/disk_cache.h"
#include "jit/kernel_cache.h"
#include "jit/nvrtc.h"

namespace fs = std::filesystem;

namespace {

constexpr int kExitUsage = 2;

// 1 element, then one size for each group width 1 to 16 (halved while a size leaves SMs idle).
constexpr std::int64_t kSizes[] = {1, 1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20};
// randn(...) * scale: how initialisers scale a normal draw (a scalar argument, any value).
constexpr float kInitScale = 0.02f;

void record_programs() {
  for (lazy::DType dtype : {lazy::DType::f32, lazy::DType::f16, lazy::DType::bf16}) {
    for (std::int64_t size : kSizes) {
      const lazy::Shape shape{size};
      lazy::eval({lazy::randn(shape, 1, dtype)});
      lazy::eval({lazy::rand(shape, 1, dtype)});
      lazy::eval({lazy::randn(shape, 1, dtype), lazy::randn(shape, 2, dtype)});
      lazy::eval({lazy::rand(shape, 1, dtype), lazy::rand(shape, 2, dtype)});
      const lazy::Tensor scaled = lazy::randn(shape, 1, dtype) * kInitScale;  // the draw dies
      lazy::eval({scaled});
    }
  }
}

// <root>/v<format>/nvrtc-<major>.<minor>/sm_<arch>/<xx>/<key>.lzk, as jit/disk_cache.h lays out.
struct CacheFile {
  fs::path path;
  int arch;
  lazy::jit::NvrtcVersion nvrtc;
  std::string key;  // hex
  std::string bytes;
};

std::vector<CacheFile> cache_files(const fs::path& root) {
  std::vector<CacheFile> files;
  for (const fs::directory_entry& file : fs::recursive_directory_iterator(root)) {
    if (!file.is_regular_file() || file.path().extension() != ".lzk") continue;
    const fs::path arch_dir = file.path().parent_path().parent_path();
    const std::string nvrtc = arch_dir.parent_path().filename().string();  // nvrtc-13.0
    const std::string::size_type dot = nvrtc.find('.');
    std::ifstream in(file.path(), std::ios::binary);
    files.push_back({file.path(),
                     std::stoi(arch_dir.filename().string().substr(3)),
                     {std::stoi(nvrtc.substr(6, dot - 6)), std::stoi(nvrtc.substr(dot + 1))},
                     file.path().stem().string(),
                     std::string(std::istreambuf_iterator<char>(in), {})});
  }
  return files;
}

// Runs the programs, which fill a kernel cache in <directory>/recorded, then files each kernel
// again in <directory>/shipped under its source without the tool's "// op (file:line)" comments,
// as the library looks shipped kernels up.
int record(const fs::path& directory, const std::string& arch) {
  fs::remove_all(directory);  // entries of an earlier build would never match this one's keys
  if (std::string why; !lazy::jit::nvrtc_available(&why)) {
    std::fprintf(stderr, "lazyfuse-ship-kernels: no kernels shipped for %s: %s\n", arch.c_str(),
                 why.c_str());
    return 0;  // a library that compiles every kernel when it runs
  }
  ::setenv("LAZY_DEVICE", "cpu", 1);
  ::setenv("LAZY_ARCH", arch.c_str(), 1);
  ::setenv("LAZY_CACHE_DIR", (directory / "recorded").c_str(), 1);
  ::setenv("LAZY_SHIPPED_KERNELS", "0", 1);
  ::setenv("LAZY_COMPILE_THREADS", "1", 1);
  record_programs();
  lazy::jit::DiskCacheConfig config;
  config.root = directory / "shipped";
  lazy::jit::DiskCache shipped(config);
  int filed = 0;
  for (const CacheFile& file : cache_files(directory / "recorded")) {
    const std::optional<lazy::ir::Hash128> key = lazy::jit::cache_entry_key(file.bytes);
    const lazy::jit::CacheEntryParts parts =
        key ? lazy::jit::parse_cache_entry(file.bytes, *key) : lazy::jit::CacheEntryParts{};
    const std::string source(parts.text);
    // Only kernels compiled without options of their own, as the library files them.
    if (!key || parts.rejected != nullptr ||
        lazy::jit::kernel_key(source, file.arch, {}, file.nvrtc) != *key) {
      std::fprintf(stderr, "lazyfuse-ship-kernels: skipped %s\n", file.path.c_str());
      continue;
    }
    const std::string text = lazy::codegen::without_op_places(source);
    shipped.store(lazy::jit::kernel_key(text, file.arch, {}, file.nvrtc), text,
                  {parts.payload.begin(), parts.payload.end()}, file.nvrtc, file.arch);
    ++filed;
  }
  if (filed == 0) {
    std::fprintf(stderr, "lazyfuse-ship-kernels: nothing compiled for %s\n", arch.c_str());
    return 1;
  }
  return 0;
}

// The bytes as a string literal of octal escapes, which compiles far faster than a list of
// numbers.
std::string string_literal(const std::string& bytes) {
  constexpr std::size_t kBytesPerLine = 40;
  std::string text;
  for (std::size_t b = 0; b < bytes.size(); ++b) {
    if (b % kBytesPerLine == 0) text += b == 0 ? "\n    \"" : "\"\n    \"";
    const auto byte = std::uint8_t(bytes[b]);
    text += {'\\', char('0' + (byte >> 6)), char('0' + ((byte >> 3) & 7)), char('0' + (byte & 7))};
  }
  return text + "\"";
}

int pack(const fs::path& output, const std::vector<fs::path>& directories) {
  std::vector<CacheFile> files;
  for (const fs::path& directory : directories) {
    if (!fs::exists(directory / "shipped")) continue;
    std::vector<CacheFile> found = cache_files(directory / "shipped");
    files.insert(files.end(), found.begin(), found.end());
  }
  std::string table;
  for (const CacheFile& file : files) {
    table += "      {" + std::to_string(file.arch) + ", {" + std::to_string(file.nvrtc.major) +
             ", " + std::to_string(file.nvrtc.minor) + "}, \"" + file.key + "\", {" +
             string_literal(file.bytes) + ", " + std::to_string(file.bytes.size()) + "}},\n";
  }
  // No files: NVRTC was missing when the library was built, which then compiles every kernel.
  const std::string body = files.empty() ? "  return {};\n"
                                         : "  static const ShippedKernel kShipped[] = {\n" + table +
                                               "  };\n  return kShipped;\n";
  std::ofstream out(output, std::ios::binary);
  out << "// Generated by tools/lazyfuse_ship_kernels.cpp at build time. Do not edit.\n"
         "#include \"jit/shipped_kernels.h\"\n\nnamespace lazy::jit {\n\n"
         "std::span<const ShippedKernel> shipped_kernels() {\n"
      << body << "}\n\n}  // namespace lazy::jit\n";
  return out ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "record" && argc == 4) return record(argv[2], argv[3]);
  if (command == "pack" && argc >= 4) return pack(argv[2], {argv + 3, argv + argc});
  std::fprintf(stderr,
               "usage: lazyfuse-ship-kernels record <directory> <arch> | pack <output.cpp> "
               "<directory>...\n");
  return kExitUsage;
}
