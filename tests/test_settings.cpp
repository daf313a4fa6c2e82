// The settings module: every LAZY_* variable is read through one table, switches take the usual
// spellings of on and off, an unusable value warns once and falls back to the default, and the
// README's table is the module's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "ir/settings.h"
#include "scoped_variable.h"

namespace {

using lazy::ir::integer_setting;
using lazy::ir::on_off_setting;
using lazy::ir::Setting;
using lazy::ir::setting_spec;
using lazy::ir::SettingKind;
using lazy::ir::text_setting;
using lazy_test::ScopedVariable;
using ::testing::HasSubstr;

int occurrences(const std::string& text, const std::string& part) {
  int count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++count;
  return count;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Settings, EverySpellingOfOnIsOn) {
  for (const char* on : {"1", "true", "TRUE", "True", "on", "ON", "yes", "Yes"}) {
    ScopedVariable variable(Setting::fast_math, on);
    EXPECT_TRUE(on_off_setting(Setting::fast_math)) << on;
  }
}

TEST(Settings, EverySpellingOfOffIsOff) {
  // Spaces around the word are ignored, as around a number (a review found "off " warned).
  for (const char* off : {"0", "false", "FALSE", "False", "off", "OFF", "no", "No", "off ", " 0"}) {
    ScopedVariable variable(Setting::fusion, off);
    EXPECT_FALSE(on_off_setting(Setting::fusion)) << off;
  }
}

TEST(Settings, FalseTurnsFastMathOff) {
  ScopedVariable variable(Setting::fast_math, "false");
  EXPECT_FALSE(on_off_setting(Setting::fast_math));
}

TEST(Settings, UnsetOrEmptyIsTheDefaultWithoutAWarning) {
  ::testing::internal::CaptureStderr();
  {
    ScopedVariable variable(Setting::fusion, "");
    EXPECT_TRUE(on_off_setting(Setting::fusion));
  }
  ::unsetenv("LAZY_FAST_MATH");
  EXPECT_FALSE(on_off_setting(Setting::fast_math));
  ::unsetenv("LAZY_MAX_PENDING_OPS");
  EXPECT_EQ(integer_setting(Setting::max_pending_ops), 20000);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(Settings, AnUnusableSwitchWarnsOnceAndFallsBackToTheDefault) {
  ScopedVariable variable(Setting::fusion, "banana");
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(on_off_setting(Setting::fusion));
  EXPECT_TRUE(on_off_setting(Setting::fusion));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "LAZY_FUSION=banana"), 1) << err;
  EXPECT_THAT(err, HasSubstr("true/false, on/off, yes/no"));
  EXPECT_THAT(err, HasSubstr("default (on)"));
}

TEST(Settings, AnUnusableValueOfAnOffByDefaultSwitchLeavesItOff) {
  ScopedVariable variable(Setting::fast_math, "enabled");
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(on_off_setting(Setting::fast_math));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("LAZY_FAST_MATH=enabled"));
  EXPECT_THAT(err, HasSubstr("default (off)"));
}

TEST(Settings, AnotherUnusableValueWarnsAgain) {
  ::testing::internal::CaptureStderr();
  {
    ScopedVariable variable(Setting::cache, "maybe");
    EXPECT_TRUE(on_off_setting(Setting::cache));
  }
  {
    ScopedVariable variable(Setting::cache, "perhaps");
    EXPECT_TRUE(on_off_setting(Setting::cache));
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(err, "LAZY_CACHE=maybe"), 1) << err;
  EXPECT_EQ(occurrences(err, "LAZY_CACHE=perhaps"), 1) << err;
}

TEST(Settings, DebugLevelIsZeroToThree) {
  for (const char* level : {"0", "1", "2", "3"}) {
    ScopedVariable variable(Setting::debug, level);
    EXPECT_EQ(integer_setting(Setting::debug), std::stoi(level));
  }
  ::testing::internal::CaptureStderr();
  for (const char* bad : {"4", "-1", "banana", "2abc"}) {
    ScopedVariable variable(Setting::debug, bad);
    EXPECT_EQ(integer_setting(Setting::debug), 0) << bad;
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("LAZY_DEBUG=banana"));
  EXPECT_THAT(err, HasSubstr("LAZY_DEBUG=4: it accepts 0 to 3"));
}

TEST(Settings, CountsArePositive) {
  {
    ScopedVariable variable(Setting::max_pending_ops, "1");
    EXPECT_EQ(integer_setting(Setting::max_pending_ops), 1);
  }
  {
    ScopedVariable variable(Setting::plan_cache_entries, "9223372036854775807");
    EXPECT_EQ(integer_setting(Setting::plan_cache_entries), 9223372036854775807);
  }
  ::testing::internal::CaptureStderr();
  for (const char* bad : {"0", "-5", "abc", "9223372036854775808"}) {
    ScopedVariable variable(Setting::max_pending_ops, bad);
    EXPECT_EQ(integer_setting(Setting::max_pending_ops), 20000) << bad;
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("LAZY_MAX_PENDING_OPS=abc: it accepts 1 or more"));
  EXPECT_THAT(err, HasSubstr("default (20000)"));
}

TEST(Settings, CacheMegabytesRunFromZeroToTwoToTheForty) {
  {
    ScopedVariable variable(Setting::cache_max_mb, "0");
    EXPECT_EQ(integer_setting(Setting::cache_max_mb), 0);
  }
  {
    ScopedVariable variable(Setting::cache_max_mb, "1099511627776");
    EXPECT_EQ(integer_setting(Setting::cache_max_mb), std::int64_t(1) << 40);
  }
  ::testing::internal::CaptureStderr();
  ScopedVariable variable(Setting::cache_max_mb, "1099511627777");
  EXPECT_EQ(integer_setting(Setting::cache_max_mb), 256);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("0 to 1099511627776"));
}

TEST(Settings, BytesPerThreadIsSixteenThirtyTwoOrSixtyFour) {
  for (int bytes : {16, 32, 64}) {
    ScopedVariable variable(Setting::bytes_per_thread, std::to_string(bytes).c_str());
    EXPECT_EQ(integer_setting(Setting::bytes_per_thread), bytes);
  }
  ::testing::internal::CaptureStderr();
  for (const char* bad : {"7", "8", "0", "128"}) {
    ScopedVariable variable(Setting::bytes_per_thread, bad);
    EXPECT_EQ(integer_setting(Setting::bytes_per_thread), 0) << bad;  // 0: codegen chooses
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("LAZY_BYTES_PER_THREAD=7: it accepts 16, 32 or 64"));
}

TEST(Settings, RowThreadsIsAPowerOfTwoUpTo1024) {
  for (int threads = 1; threads <= 1024; threads *= 2) {
    ScopedVariable variable(Setting::row_threads, std::to_string(threads).c_str());
    EXPECT_EQ(integer_setting(Setting::row_threads), threads);
  }
  ::testing::internal::CaptureStderr();
  for (const char* bad : {"0", "100", "2048"}) {
    ScopedVariable variable(Setting::row_threads, bad);
    EXPECT_EQ(integer_setting(Setting::row_threads), 0) << bad;
  }
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("LAZY_ROW_THREADS=100: it accepts a power of two from 1 to 1024"));
}

TEST(Settings, TextIsPassedAsSet) {
  {
    ScopedVariable variable(Setting::cache_dir, "relative/dir");
    EXPECT_EQ(text_setting(Setting::cache_dir), "relative/dir");
  }
  ScopedVariable variable(Setting::nvrtc_worker, "");
  EXPECT_EQ(text_setting(Setting::nvrtc_worker), std::nullopt);
  // Found in review: spaces were kept, and a value of spaces named a directory.
  {
    ScopedVariable spaced(Setting::cache_dir, " /tmp/some dir  ");
    EXPECT_EQ(text_setting(Setting::cache_dir), "/tmp/some dir");
  }
  ScopedVariable spaces(Setting::cache_dir, "   ");
  EXPECT_EQ(text_setting(Setting::cache_dir), std::nullopt);
}

TEST(Settings, TheTableNamesEachLazyVariableOnceWithUsableDefaults) {
  std::set<std::string_view> names;
  for (const lazy::ir::SettingSpec& spec : lazy::ir::all_settings()) {
    EXPECT_TRUE(spec.name.starts_with("LAZY_")) << spec.name;
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    EXPECT_FALSE(spec.effect.empty()) << spec.name;
    if (spec.kind == SettingKind::integer && spec.default_text.empty()) {
      EXPECT_GE(spec.default_value, spec.min) << spec.name;
      EXPECT_LE(spec.default_value, spec.max) << spec.name;
    }
    if (spec.kind == SettingKind::text) EXPECT_FALSE(spec.accepted_text.empty()) << spec.name;
  }
}

TEST(Settings, TheReadmeTableIsTheModulesTable) {
  const std::string readme = read_file(std::filesystem::path(LAZY_SOURCE_DIR) / "README.md");
  const std::string marker = "<!-- settings table: src/ir/settings.cpp -->\n";
  const std::size_t start = readme.find(marker);
  ASSERT_NE(start, std::string::npos) << "README.md lacks " << marker;
  const std::size_t table_start = start + marker.size();
  const std::size_t table_end = readme.find("\n\n", table_start);
  EXPECT_EQ(readme.substr(table_start, table_end + 1 - table_start),
            lazy::ir::settings_table_markdown());
}

TEST(Settings, NoSourceOutsideTheModuleReadsTheEnvironment) {
  const std::filesystem::path src = std::filesystem::path(LAZY_SOURCE_DIR) / "src";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file() || entry.path() == src / "ir" / "settings.cpp") continue;
    EXPECT_THAT(read_file(entry.path()), ::testing::Not(HasSubstr("getenv")))
        << entry.path() << " reads the environment: add the variable to src/ir/settings.cpp";
  }
}

}  // namespace
