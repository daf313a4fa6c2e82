#include "jit/toolkit_library.h"

#include <dlfcn.h>
#include <glob.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>

namespace lazy::jit {
namespace {

bool is_bare_name(const std::string& candidate) {
  return candidate.find('/') == std::string::npos;
}

std::string loaded_path(void* handle, const std::string& fallback) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    return map->l_name;
  }
  return fallback;
}

}  // namespace

std::vector<std::string> toolkit_library_candidates(std::string_view name, int major,
                                                    const char* cuda_home, const char* cuda_path) {
  const std::string unversioned = "lib" + std::string(name) + ".so";
  const std::string versioned = unversioned + "." + std::to_string(major);

  std::vector<std::string> directories;
  for (const char* root : {cuda_home, cuda_path}) {
    if (root != nullptr && root[0] != '\0') directories.push_back(std::string(root) + "/lib64");
  }
  directories.push_back("/usr/local/cuda/lib64");
  const std::string pattern = "/usr/local/cuda-" + std::to_string(major) + "*/lib64";
  glob_t matches{};
  if (glob(pattern.c_str(), GLOB_ONLYDIR, nullptr, &matches) == 0) {
    std::vector<std::string> found(matches.gl_pathv, matches.gl_pathv + matches.gl_pathc);
    // Newest minor version first.
    std::sort(found.rbegin(), found.rend());
    directories.insert(directories.end(), found.begin(), found.end());
  }
  globfree(&matches);
  directories.push_back("/usr/lib/x86_64-linux-gnu");

  std::vector<std::string> candidates;
  auto add = [&](std::string candidate) {
    if (std::find(candidates.begin(), candidates.end(), candidate) == candidates.end()) {
      candidates.push_back(std::move(candidate));
    }
  };
  for (const std::string& file : {versioned, unversioned}) {
    add(file);
    for (const std::string& directory : directories) add(directory + "/" + file);
  }
  return candidates;
}

std::optional<OpenedLibrary> open_toolkit_library(
    std::span<const std::string> candidates,
    const std::function<std::string(void* handle, const std::string& path)>& accept,
    std::string* tried) {
  for (const std::string& candidate : candidates) {
    struct stat file_status;
    if (!is_bare_name(candidate) && stat(candidate.c_str(), &file_status) != 0) {
      *tried += "\n  " + candidate + ": no such file";
      continue;
    }
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = dlerror();
      *tried += "\n  " + candidate +
                (is_bare_name(candidate) ? " on the loader's search path" : "") + ": " +
                (error != nullptr ? error : "dlopen failed");
      continue;
    }
    OpenedLibrary library{handle, loaded_path(handle, candidate)};
    const std::string why_not = accept(handle, library.path);
    if (why_not.empty()) return library;
    *tried += "\n  " + why_not;
    dlclose(handle);
  }
  return std::nullopt;
}

}  // namespace lazy::jit
