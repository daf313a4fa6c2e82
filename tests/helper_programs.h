// Where the programs some tests start (key_printer, cache_child, quickstart, lazyfuse-cache) are:
// beside the running test executable when they were copied with it (the device bundle made by
// .ci/device-bundle), else where the build put them (paths tests/CMakeLists.txt compiles in).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace lazy_test {

// `built_path` is the program's path in the build tree; a program of the same name beside this
// test executable wins, so a bundle copied to another machine runs its own copies.
inline std::string helper_program(const char* built_path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path beside = self.parent_path() / fs::path(built_path).filename();
    if (::access(beside.c_str(), X_OK) == 0) return beside.string();
  }
  return built_path;
}

}  // namespace lazy_test
