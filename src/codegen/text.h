// String building for generated source. (Debian's abseil is built with its own string_view, so
// absl::StrCat does not take std::string_view; this takes both and numbers.)
#pragma once

#include <concepts>
#include <string>
#include <string_view>

namespace lazy::codegen {

inline void append_part(std::string& out, std::string_view part) {
  out.append(part);
}
inline void append_part(std::string& out, char part) {
  out.push_back(part);
}
template <class T>
requires std::integral<T> &&(!std::same_as<T, char>)void append_part(std::string& out, T part) {
  out.append(std::to_string(part));
}

template <class... Parts>
void append(std::string& out, const Parts&... parts) {
  (append_part(out, parts), ...);
}

template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string out;
  append(out, parts...);
  return out;
}

}  // namespace lazy::codegen
