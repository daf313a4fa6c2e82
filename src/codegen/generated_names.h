// Names of the values in generated source, one place for both kernel emitters.
#pragma once

#include <cstddef>
#include <string>

#include "codegen/text.h"
#include "fuse/partition.h"

namespace lazy::codegen {

// Term t's value.
inline std::string value_name(const fuse::Term& term, std::size_t t) {
  (void)term;
  return cat("v", t);
}
// Kernel arguments (fields of `Args a`): scalar t's value, the pointer load t reads, the pointer
// output r is written through.
inline std::string scalar_field(std::size_t t) {
  return cat("s", t);
}
inline std::string input_field(std::size_t t) {
  return cat("p", t);
}
inline std::string output_field(std::size_t r) {
  return cat("out", r);
}
inline std::string input_name(std::size_t t) {
  return cat("a.", input_field(t));
}
inline std::string output_name(std::size_t r) {
  return cat("a.", output_field(r));
}
// One vector load of load t's group.
inline std::string vector_load_name(std::size_t t) {
  return cat("L", t);
}
// Load t's groups held in registers.
inline std::string held_name(std::size_t t) {
  return cat("H", t);
}
// Computed value t kept in registers for a later phase.
inline std::string kept_name(std::size_t t) {
  return cat("X", t);
}
// The vector of output r's elements a thread stores.
inline std::string stored_name(std::size_t r) {
  return cat("W", r);
}

}  // namespace lazy::codegen
