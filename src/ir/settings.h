// Every environment variable the library reads, read here and nowhere else: one table of the
// LAZY_* settings (name, kind, default, accepted values, what it does), which README.md's table is
// written from, and the few variables other software defines. A value a setting cannot use is
// reported once on stderr, naming the variable, the value and what it accepts, and the default is
// used instead. Reading is not cached here: a stage that reads a setting once keeps the value.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace lazy::ir {

enum class Setting {
  device,
  arch,
  debug,
  fusion,
  fast_math,
  matmul_tf32,
  autotune,
  max_pending_ops,
  memory_limit,
  plan_cache_entries,
  function_captures,
  kernel_cache_entries,
  sync_launches,
  poison_outputs,
  bytes_per_thread,
  row_threads,
  specialized_row_lengths,
  specialized_product_shapes,
  specialized_concat_shapes,
  cache_dir,
  cache,
  cache_max_mb,
  cache_save_source,
  fast_compile,
  compile_threads,
  nvrtc_worker,
  nvrtc_worker_timeout,
  shipped_kernels,
};

enum class SettingKind {
  on_off,   // 1/0, true/false, on/off, yes/no, in any case
  integer,  // a whole number from min to max
  one_of,   // one of the listed whole numbers
  text,     // a device, an arch or a path, checked by the stage that reads it
};

struct SettingSpec {
  Setting setting;
  std::string_view name;
  SettingKind kind;
  // on_off: 0 or 1; integer and one_of: the value, or 0 where the reading stage picks it.
  std::int64_t default_value = 0;
  // How the README shows the default and the accepted values, where the kind does not say.
  std::string_view default_text = {};
  std::string_view accepted_text = {};
  std::int64_t min = 0, max = 0;               // integer
  std::span<const std::int64_t> choices = {};  // one_of
  std::string_view effect = {};                // one line for the README
};

std::span<const SettingSpec> all_settings();
const SettingSpec& setting_spec(Setting setting);

// What a setting accepts, as its warning and the README say it: "0 to 3", "16, 32 or 64".
std::string accepted_values(const SettingSpec& spec);
// The default as the README shows it: "on", "20000", "hardware threads".
std::string default_description(const SettingSpec& spec);

// The usual spellings of on and off; nullopt for anything else.
std::optional<bool> parse_on_off(std::string_view text);

// The setting's value from the environment, or its default when unset, empty or unusable (which
// warns once per variable and value).
bool on_off_setting(Setting setting);
std::int64_t integer_setting(Setting setting);
// The text as set without the spaces around it, or nullopt when unset or only spaces.
std::optional<std::string> text_setting(Setting setting);

// README.md's settings table, a row per setting: variable, accepts, default, effect.
std::string settings_table_markdown();

// Variables other software defines that the library follows too.
enum class ForeignVariable { home, xdg_cache_home, cuda_home, cuda_path, cuda_launch_blocking };
// The variable's value, or nullptr when unset.
const char* foreign_variable(ForeignVariable variable);

}  // namespace lazy::ir
