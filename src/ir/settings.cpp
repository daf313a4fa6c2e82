#include "ir/settings.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <set>

#include <absl/strings/ascii.h>
#include <absl/strings/numbers.h>

namespace lazy::ir {

namespace {

constexpr std::int64_t kNoUpperBound = std::numeric_limits<std::int64_t>::max();
// LAZY_CACHE_MAX_MB is shifted by 20 into bytes; past 2^40 MB that would overflow.
constexpr std::int64_t kMaxCacheMegabytes = std::int64_t(1) << 40;

// The bytes a thread moves per step that the iteration space can split into whole 16-byte
// accesses for every dtype.
constexpr std::array<std::int64_t, 3> kBytesPerThreadChoices = {16, 32, 64};
// A row kernel folds a row with a power of two of threads, at most a block of 1024.
constexpr std::array<std::int64_t, 11> kRowThreadChoices = {1,  2,   4,   8,   16,  32,
                                                            64, 128, 256, 512, 1024};

constexpr std::string_view kOnOffSpellings = "1/0, true/false, on/off, yes/no (any case)";

constexpr SettingSpec kSettings[] = {
    {.setting = Setting::device,
     .name = "LAZY_DEVICE",
     .kind = SettingKind::text,
     .default_text = "`cuda` when a GPU is usable, else `cpu`",
     .accepted_text = "`cuda` (GPU 0), `cuda:N` (GPU N), `cpu`",
     .effect = "where recorded work is computed: a GPU, or the host reference evaluator; a value "
               "naming no device is an error, and so is `cuda` or `cuda:N` where no GPU is usable "
               "(at the first sync)"},
    {.setting = Setting::arch,
     .name = "LAZY_ARCH",
     .kind = SettingKind::text,
     .default_text = "`sm_90`",
     .accepted_text = "`sm_N` or `N`",
     .effect = "the architecture kernels are compiled for when no GPU says which; another value "
               "is an error"},
    {.setting = Setting::debug,
     .name = "LAZY_DEBUG",
     .kind = SettingKind::integer,
     .default_value = 0,
     .min = 0,
     .max = 3,
     .effect = "`1`: a line per sync (ops, kernels, plan hit or miss, kernels compiled, time) and "
               "the CUDA source of every kernel when it is generated; `2`: also the recorded "
               "graph and the partition, with the reason each region was cut; `3`: also each "
               "kernel's grid, block, device time and GB/s. All on stderr"},
    {.setting = Setting::fusion,
     .name = "LAZY_FUSION",
     .kind = SettingKind::on_off,
     .default_value = 1,
     .effect = "off: every op is its own kernel (the unfused baseline); also "
               "`lazy::set_fusion_enabled`"},
    {.setting = Setting::fast_math,
     .name = "LAZY_FAST_MATH",
     .kind = SettingKind::on_off,
     .default_value = 0,
     .effect = "on: hardware approximations for tanh, sigmoid, exp, log, sin, cos, division "
               "(error bounds in docs/semantics.md); also `lazy::set_fast_math`"},
    {.setting = Setting::matmul_tf32,
     .name = "LAZY_MATMUL_TF32",
     .kind = SettingKind::on_off,
     .default_value = 0,
     .effect = "on: f32 matrix products on TF32 tensor cores (about 10 mantissa bits per "
               "operand); off: full FP32, as PyTorch's default; also `lazy::set_matmul_precision`"},
    {.setting = Setting::autotune,
     .name = "LAZY_AUTOTUNE",
     .kind = SettingKind::on_off,
     .default_value = 0,
     .effect = "on: the first use of a matrix product's shape times cuBLASLt's top candidate "
               "algorithms and keeps the fastest, in the kernel cache on disk too; off: "
               "cuBLASLt's heuristic's first choice"},
    // Large enough that real steps (a transformer layer's forward and backward is a few thousand
    // ops) are one graph.
    {.setting = Setting::max_pending_ops,
     .name = "LAZY_MAX_PENDING_OPS",
     .kind = SettingKind::integer,
     .default_value = 20000,
     .min = 1,
     .max = kNoUpperBound,
     .effect = "ops a thread may record before recording syncs by itself, so a loop that never "
               "reads a value cannot grow memory without bound"},
    {.setting = Setting::memory_limit,
     .name = "LAZY_MEMORY_LIMIT",
     .kind = SettingKind::integer,
     .default_value = 0,
     .default_text = "0 (none)",
     .min = 0,
     .max = kNoUpperBound,
     .effect =
         "bytes of GPU memory lazyfuse's tensors and buffers may hold (lazy::set_memory_limit): "
         "an allocation past it fails with lazy::RuntimeError once the pool's cache is freed"},
    // One plan per distinct (graph, shapes, input layouts) a program syncs.
    {.setting = Setting::plan_cache_entries,
     .name = "LAZY_PLAN_CACHE_ENTRIES",
     .kind = SettingKind::integer,
     .default_value = 1024,
     .min = 1,
     .max = kNoUpperBound,
     .effect = "plans kept in memory, least recently used first out"},
    // A signature's capture may hold up to 64 MiB of a CUDA graph's intermediates.
    {.setting = Setting::function_captures,
     .name = "LAZY_FUNCTION_CAPTURES",
     .kind = SettingKind::integer,
     .default_value = 64,
     .min = 1,
     .max = kNoUpperBound,
     .effect = "input signatures each lazy::Function keeps captured, least recently called first "
               "out (a call with a dropped signature captures it again)"},
    // Far more than a program's distinct kernels, small next to memory (a CUBIN is a few KB).
    {.setting = Setting::kernel_cache_entries,
     .name = "LAZY_KERNEL_CACHE_ENTRIES",
     .kind = SettingKind::integer,
     .default_value = 4096,
     .min = 1,
     .max = kNoUpperBound,
     .effect = "compiled kernels kept in host memory, least recently used first out (a kernel "
               "loaded on the GPU stays loaded until the process ends)"},
    {.setting = Setting::sync_launches,
     .name = "LAZY_SYNC_LAUNCHES",
     .kind = SettingKind::on_off,
     .default_value = 0,
     .effect = "on (or `CUDA_LAUNCH_BLOCKING=1`): wait for every kernel launch, so a kernel that "
               "faults is named exactly (slow; for debugging)"},
    {.setting = Setting::poison_outputs,
     .name = "LAZY_POISON_OUTPUTS",
     .kind = SettingKind::on_off,
     .default_value = 0,
     .effect = "on: fill kernel outputs with NaN bytes before each launch, so unwritten elements "
               "show"},
    {.setting = Setting::bytes_per_thread,
     .name = "LAZY_BYTES_PER_THREAD",
     .kind = SettingKind::one_of,
     .default_text = "16, or 32 for kernels heavy in transcendental math",
     .choices = kBytesPerThreadChoices,
     .effect = "force the bytes a thread moves per step, also in kernels too small to fill the "
               "GPU at that width, for tuning and testing"},
    {.setting = Setting::row_threads,
     .name = "LAZY_ROW_THREADS",
     .kind = SettingKind::one_of,
     .default_text = "chosen from the row's length",
     .accepted_text = "a power of two from 1 to 1024",
     .choices = kRowThreadChoices,
     .effect = "force the threads that fold one row of a row kernel, for tuning"},
    {.setting = Setting::specialized_row_lengths,
     .name = "LAZY_SPECIALIZED_ROW_LENGTHS",
     .kind = SettingKind::integer,
     .default_value = 1,
     .min = 0,
     .max = 1 << 20,
     .effect = "distinct row lengths a row kernel (softmax, norms) is compiled for; further "
               "lengths share a kernel that takes the length at run time, one a vector width "
               "and way of reading the row (held in registers or looped over; 0: always those)"},
    {.setting = Setting::specialized_product_shapes,
     .name = "LAZY_SPECIALIZED_PRODUCT_SHAPES",
     .kind = SettingKind::integer,
     .default_value = 8,
     .min = 0,
     .max = 1 << 20,
     .effect = "distinct weight shapes a product of at most 16 rows (a decode step's linear) is "
               "compiled for; further shapes share one kernel that takes them at run time (0: "
               "always that one)"},
    {.setting = Setting::specialized_concat_shapes,
     .name = "LAZY_SPECIALIZED_CONCAT_SHAPES",
     .kind = SettingKind::integer,
     .default_value = 8,
     .min = 0,
     .max = 1 << 20,
     .effect = "distinct shapes a kernel of several concatenations (a stencil of rolls or pads) "
               "is compiled for; further shapes share one kernel that takes them at run time (0: "
               "always that one)"},
    {.setting = Setting::cache_dir,
     .name = "LAZY_CACHE_DIR",
     .kind = SettingKind::text,
     .default_text = "`$XDG_CACHE_HOME/lazyfuse`, else `~/.cache/lazyfuse`",
     .accepted_text = "a directory",
     .effect = "where compiled kernels are kept on disk"},
    {.setting = Setting::cache,
     .name = "LAZY_CACHE",
     .kind = SettingKind::on_off,
     .default_value = 1,
     .effect = "off: keep compiled kernels in memory only"},
    // A CUBIN is 5-50 KB, so thousands of kernels, while staying small next to a home directory
    // quota.
    {.setting = Setting::cache_max_mb,
     .name = "LAZY_CACHE_MAX_MB",
     .kind = SettingKind::integer,
     .default_value = 256,
     .min = 0,
     .max = kMaxCacheMegabytes,
     .effect = "the bound of the cache on disk in MB (2^20 bytes); least recently used entries go "
               "first, a load refreshes an entry; 0 writes nothing"},
    {.setting = Setting::cache_save_source,
     .name = "LAZY_CACHE_SAVE_SOURCE",
     .kind = SettingKind::on_off,
     .default_value = 0,
     .effect = "on: also write each kernel's `.cu` beside its entry on disk"},
    {.setting = Setting::fast_compile,
     .name = "LAZY_FAST_COMPILE",
     .kind = SettingKind::integer,
     .default_value = 0,
     .min = 0,
     .max = 3,
     .effect = "NVRTC's fast-compile level (`--Ofast-compile`): 0 off, 1 min, 2 mid, 3 max; "
               "shorter compiles, kernels possibly slower"},
    {.setting = Setting::compile_threads,
     .name = "LAZY_COMPILE_THREADS",
     .kind = SettingKind::integer,
     .default_text = "hardware threads",
     .min = 1,
     .max = kNoUpperBound,
     .effect = "parallel compiles when a sync needs several new kernels (`1` compiles one at a "
               "time in-process and starts no worker processes)"},
    {.setting = Setting::nvrtc_worker,
     .name = "LAZY_NVRTC_WORKER",
     .kind = SettingKind::text,
     .default_text = "`lazyfuse-nvrtc-worker` beside the library or in `../bin`",
     .accepted_text = "an executable's path",
     .effect = "the compile worker program; one that cannot be run leaves compiles in the "
               "process"},
    {.setting = Setting::nvrtc_worker_timeout,
     .name = "LAZY_NVRTC_WORKER_TIMEOUT",
     .kind = SettingKind::integer,
     .default_value = 120,
     .min = 1,
     .max = 3600,
     .effect = "seconds a compile worker may take to answer one request before it is stopped "
               "and its kernels compile in the process (the slowest kernels take a few seconds)"},
    {.setting = Setting::shipped_kernels,
     .name = "LAZY_SHIPPED_KERNELS",
     .kind = SettingKind::on_off,
     .default_value = 1,
     .effect = "off: compile with NVRTC also the kernels the library was built with (random "
               "tensors), as a cold start without them would"},
};

constexpr bool table_follows_enum() {
  for (std::size_t i = 0; i < std::size(kSettings); ++i)
    if (int(kSettings[i].setting) != int(i)) return false;
  return true;
}
static_assert(table_follows_enum(), "kSettings lists each Setting once, in the enum's order");

const char* raw_value(const SettingSpec& spec) {
  return std::getenv(std::string(spec.name).c_str());
}

// Reports an unusable value once per variable and value, so a setting read at every sync does
// not repeat itself.
void warn_unusable(const SettingSpec& spec, std::string_view value) {
  static std::mutex* mutex = new std::mutex();
  static auto* warned = new std::set<std::string>();  // until the process ends
  std::lock_guard lock(*mutex);
  if (!warned->insert(std::string(spec.name) + "=" + std::string(value)).second) return;
  const std::string text = "lazyfuse: ignoring " + std::string(spec.name) + "=" +
                           std::string(value) + ": it accepts " + accepted_values(spec) +
                           "; using the default (" + default_description(spec) + ")\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

std::string join_choices(std::span<const std::int64_t> choices) {
  std::string text;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) text += i + 1 == choices.size() ? " or " : ", ";
    text += std::to_string(choices[i]);
  }
  return text;
}

}  // namespace

std::span<const SettingSpec> all_settings() {
  return kSettings;
}

const SettingSpec& setting_spec(Setting setting) {
  return kSettings[int(setting)];
}

std::string accepted_values(const SettingSpec& spec) {
  if (!spec.accepted_text.empty()) return std::string(spec.accepted_text);
  switch (spec.kind) {
    case SettingKind::on_off:
      return std::string(kOnOffSpellings);
    case SettingKind::integer:
      if (spec.max == kNoUpperBound) return std::to_string(spec.min) + " or more";
      return std::to_string(spec.min) + " to " + std::to_string(spec.max);
    case SettingKind::one_of:
      return join_choices(spec.choices);
    case SettingKind::text:
      break;
  }
  return "";
}

std::string default_description(const SettingSpec& spec) {
  if (!spec.default_text.empty()) return std::string(spec.default_text);
  if (spec.kind == SettingKind::on_off) return spec.default_value != 0 ? "on" : "off";
  return std::to_string(spec.default_value);
}

std::optional<bool> parse_on_off(std::string_view text) {
  // Spaces around the word are ignored, as around a number (absl::SimpleAtoi's).
  std::string lower(absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size())));
  absl::AsciiStrToLower(&lower);
  for (std::string_view on : {"1", "true", "on", "yes"})
    if (lower == on) return true;
  for (std::string_view off : {"0", "false", "off", "no"})
    if (lower == off) return false;
  return std::nullopt;
}

bool on_off_setting(Setting setting) {
  const SettingSpec& spec = setting_spec(setting);
  const char* value = raw_value(spec);
  if (value == nullptr || *value == '\0') return spec.default_value != 0;
  if (std::optional<bool> parsed = parse_on_off(value)) return *parsed;
  warn_unusable(spec, value);
  return spec.default_value != 0;
}

std::int64_t integer_setting(Setting setting) {
  const SettingSpec& spec = setting_spec(setting);
  const char* value = raw_value(spec);
  if (value == nullptr || *value == '\0') return spec.default_value;
  std::int64_t parsed = 0;
  if (absl::SimpleAtoi(value, &parsed)) {
    if (spec.kind == SettingKind::integer && parsed >= spec.min && parsed <= spec.max) {
      return parsed;
    }
    if (spec.kind == SettingKind::one_of) {
      for (std::int64_t choice : spec.choices)
        if (parsed == choice) return parsed;
    }
  }
  warn_unusable(spec, value);
  return spec.default_value;
}

std::optional<std::string> text_setting(Setting setting) {
  // Spaces around the text go, as every setting's do: LAZY_CACHE_DIR=" " made a directory named
  // by a space.
  const char* value = raw_value(setting_spec(setting));
  if (value == nullptr) return std::nullopt;
  const absl::string_view text = absl::StripAsciiWhitespace(value);
  if (text.empty()) return std::nullopt;
  return std::string(text);
}

std::string settings_table_markdown() {
  std::string table =
      "| variable | accepts | default | effect |\n"
      "| --- | --- | --- | --- |\n";
  for (const SettingSpec& spec : kSettings) {
    table += "| `" + std::string(spec.name) + "` | " + accepted_values(spec) + " | " +
             default_description(spec) + " | " + std::string(spec.effect) + " |\n";
  }
  return table;
}

const char* foreign_variable(ForeignVariable variable) {
  switch (variable) {
    case ForeignVariable::home:
      return std::getenv("HOME");
    case ForeignVariable::xdg_cache_home:
      return std::getenv("XDG_CACHE_HOME");
    case ForeignVariable::cuda_home:
      return std::getenv("CUDA_HOME");
    case ForeignVariable::cuda_path:
      return std::getenv("CUDA_PATH");
    case ForeignVariable::cuda_launch_blocking:
      return std::getenv("CUDA_LAUNCH_BLOCKING");
  }
  return nullptr;
}

}  // namespace lazy::ir
