#include "jit/nvrtc.h"

#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "ir/settings.h"
#include "jit/toolkit_library.h"
#include "lazy/error.h"

namespace lazy::jit {
namespace {

// The NVRTC major version the headers belong to; its library is libnvrtc.so.<major>.
constexpr int kNvrtcMajor = CUDA_VERSION / 1000;

#define LAZY_NVRTC_FUNCTIONS(X) \
  X(nvrtcVersion)               \
  X(nvrtcGetErrorString)        \
  X(nvrtcCreateProgram)         \
  X(nvrtcCompileProgram)        \
  X(nvrtcGetProgramLogSize)     \
  X(nvrtcGetProgramLog)         \
  X(nvrtcGetCUBINSize)          \
  X(nvrtcGetCUBIN)              \
  X(nvrtcDestroyProgram)        \
  X(nvrtcGetNumSupportedArchs)  \
  X(nvrtcGetSupportedArchs)

#define LAZY_NVRTC_MEMBER(name) decltype(&::name) name = nullptr;
struct NvrtcLibrary {
  LAZY_NVRTC_FUNCTIONS(LAZY_NVRTC_MEMBER)
  NvrtcVersion version{};
};
#undef LAZY_NVRTC_MEMBER

#define LAZY_STRINGIZE_EXPANDED(name) LAZY_STRINGIZE_RAW(name)
#define LAZY_STRINGIZE_RAW(name) #name

struct NvrtcState {
  std::optional<NvrtcLibrary> library;
  std::string why;
};

// Resolves every function, or says which are missing.
std::optional<NvrtcLibrary> resolve(void* handle, const std::string& path, std::string* why) {
  NvrtcLibrary library;
  std::string missing;
#define LAZY_NVRTC_RESOLVE(name)                                                              \
  library.name =                                                                              \
      reinterpret_cast<decltype(library.name)>(dlsym(handle, LAZY_STRINGIZE_EXPANDED(name))); \
  if (library.name == nullptr)                                                                \
    missing += std::string(missing.empty() ? "" : ", ") + LAZY_STRINGIZE_EXPANDED(name);
  LAZY_NVRTC_FUNCTIONS(LAZY_NVRTC_RESOLVE)
#undef LAZY_NVRTC_RESOLVE
  if (!missing.empty()) {
    *why = path + " lacks " + missing;
    return std::nullopt;
  }
  if (library.nvrtcVersion(&library.version.major, &library.version.minor) != NVRTC_SUCCESS) {
    *why = path + ": nvrtcVersion failed";
    return std::nullopt;
  }
  return library;
}

NvrtcState load_nvrtc() {
  NvrtcState state;
  std::string tried;
  const std::vector<std::string> candidates =
      nvrtc_library_candidates(ir::foreign_variable(ir::ForeignVariable::cuda_home),
                               ir::foreign_variable(ir::ForeignVariable::cuda_path));
  auto accept = [&](void* handle, const std::string& path) {
    std::string why;
    state.library = resolve(handle, path, &why);
    return why;
  };
  if (open_toolkit_library(candidates, accept, &tried)) return state;
  const std::string library = "libnvrtc.so." + std::to_string(kNvrtcMajor);
  state.why = "lazyfuse: NVRTC, the CUDA run-time compiler (" + library +
              "), could not be loaded. Looked for it in:" + tried +
              "\nInstall the CUDA toolkit's NVRTC (e.g. the cuda-nvrtc-" +
              std::to_string(kNvrtcMajor) +
              "-x package from NVIDIA's repository, or the full "
              "CUDA toolkit), or set CUDA_HOME to a toolkit root that holds lib64/" +
              library + ".";
  return state;
}

const NvrtcState& nvrtc_state() {
  static const NvrtcState state = load_nvrtc();
  return state;
}

const NvrtcLibrary& nvrtc_library() {
  const NvrtcState& state = nvrtc_state();
  if (!state.library) throw RuntimeError(state.why, std::source_location::current());
  return *state.library;
}

// Destroys the program however compilation ends.
class ProgramOwner {
 public:
  ProgramOwner(const NvrtcLibrary& library, nvrtcProgram program)
      : library_(library), program_(program) {}
  ProgramOwner(const ProgramOwner&) = delete;
  ProgramOwner& operator=(const ProgramOwner&) = delete;
  ~ProgramOwner() { library_.nvrtcDestroyProgram(&program_); }

 private:
  const NvrtcLibrary& library_;
  nvrtcProgram program_;
};

void check_nvrtc(const NvrtcLibrary& library, nvrtcResult result, std::string_view what) {
  if (result != NVRTC_SUCCESS) {
    throw RuntimeError(std::string(what) + " failed: " + library.nvrtcGetErrorString(result),
                       std::source_location::current());
  }
}

std::string program_log(const NvrtcLibrary& library, nvrtcProgram program) {
  std::size_t size = 0;
  if (library.nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0) return {};
  std::string log(size, '\0');
  if (library.nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::vector<std::string> nvrtc_library_candidates(const char* cuda_home, const char* cuda_path) {
  return toolkit_library_candidates("nvrtc", kNvrtcMajor, cuda_home, cuda_path);
}

bool nvrtc_available(std::string* why) {
  const NvrtcState& state = nvrtc_state();
  if (!state.library && why != nullptr) *why = state.why;
  return state.library.has_value();
}

NvrtcVersion nvrtc_version() {
  return nvrtc_library().version;
}

std::vector<int> nvrtc_supported_archs() {
  const NvrtcLibrary& library = nvrtc_library();
  int count = 0;
  check_nvrtc(library, library.nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(std::size_t(std::max(count, 0)));
  check_nvrtc(library, library.nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  return archs;
}

std::vector<std::string> nvrtc_compile_options(int sm_arch,
                                               std::span<const std::string> extra_options) {
  // --minimal leaves out declarations generated kernels never use (textures, surfaces, the
  // runtime API): 1.5 to 2 ms less of a 35 to 45 ms compile on the 2-core machine.
  std::vector<std::string> options = {"--gpu-architecture=sm_" + std::to_string(sm_arch),
                                      "-std=c++17", "--minimal"};
  // NVRTC 12.9 and later keep their own cache of compiles in the driver's compute cache, which
  // lazyfuse's disk cache makes redundant: it cost a cold compile on the H100 machine about a
  // third of its time (85 to 105 ms against 56 to 68 without), and loading the driver from
  // NVRTC made a process's first compile take 250 to 330 ms instead of 60 to 100.
  static const bool has_cache = nvrtc_available() && nvrtc_version() >= NvrtcVersion{12, 9};
  if (has_cache) options.push_back("--no-cache");
  static const std::int64_t fast_compile = ir::integer_setting(ir::Setting::fast_compile);
  static constexpr const char* kFastCompileLevels[] = {"min", "mid", "max"};
  if (fast_compile > 0)
    options.push_back(std::string("--Ofast-compile=") + kFastCompileLevels[fast_compile - 1]);
  // Each f32 multiply and add rounded, as eager PyTorch's separate kernels round them: contracted
  // into one fma, floor(x * 10 - 7) at x = 0.7f was -1 and sqrt(a * a - b * b) NaN where a == b.
  // Fast math contracts again. Templates that want an fma call fmaf.
  if (std::find(extra_options.begin(), extra_options.end(), "--use_fast_math") ==
      extra_options.end())
    options.push_back("--fmad=false");
  options.insert(options.end(), extra_options.begin(), extra_options.end());
  return options;
}

std::vector<char> compile_to_cubin(std::string_view source, std::string_view program_name,
                                   int sm_arch, std::span<const std::string> extra_options,
                                   std::span<const InMemoryHeader> headers) {
  const NvrtcLibrary& library = nvrtc_library();
  const std::string source_text(source);
  const std::string name(program_name);
  std::vector<std::string> header_names, header_texts;
  for (const InMemoryHeader& header : headers) {
    header_names.emplace_back(header.name);
    header_texts.emplace_back(header.text);
  }
  std::vector<const char*> header_name_pointers, header_text_pointers;
  for (std::size_t i = 0; i < headers.size(); ++i) {
    header_name_pointers.push_back(header_names[i].c_str());
    header_text_pointers.push_back(header_texts[i].c_str());
  }

  nvrtcProgram program = nullptr;
  check_nvrtc(
      library,
      library.nvrtcCreateProgram(&program, source_text.c_str(), name.c_str(), int(headers.size()),
                                 header_text_pointers.data(), header_name_pointers.data()),
      "nvrtcCreateProgram for " + name);
  ProgramOwner owner(library, program);

  const std::vector<std::string> options = nvrtc_compile_options(sm_arch, extra_options);
  std::vector<const char*> option_pointers;
  for (const std::string& option : options) option_pointers.push_back(option.c_str());

  const nvrtcResult result =
      library.nvrtcCompileProgram(program, int(option_pointers.size()), option_pointers.data());
  if (result != NVRTC_SUCCESS) {
    std::string options_text;
    for (const std::string& option : options) options_text += " " + option;
    throw CompileError("kernel program '" + name + "' (" + library.nvrtcGetErrorString(result) +
                           "; options:" + options_text + ")",
                       source_text, program_log(library, program));
  }

  std::size_t size = 0;
  check_nvrtc(library, library.nvrtcGetCUBINSize(program, &size), "nvrtcGetCUBINSize for " + name);
  std::vector<char> cubin(size);
  check_nvrtc(library, library.nvrtcGetCUBIN(program, cubin.data()), "nvrtcGetCUBIN for " + name);
  return cubin;
}

}  // namespace lazy::jit
