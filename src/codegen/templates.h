// The files of nvrtc_templates/, embedded into the library at build time. Generated kernels
// include them by name; NVRTC receives them as in-memory headers.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/hash.h"

namespace lazy::codegen {

struct EmbeddedTemplate {
  std::string_view name;  // "philox.cuh"
  std::string_view text;
};

std::span<const EmbeddedTemplate> embedded_templates();

// The text of one template; aborts on an unknown name (a bug in the library, not user input).
std::string_view template_text(std::string_view name);

// A skeleton's $-names and what replaces each.
using Substitutions = std::vector<std::pair<std::string, std::string>>;

// A checksum of every template, for cache keys: a changed template must not reuse old kernels.
ir::Hash128 templates_checksum();

}  // namespace lazy::codegen
