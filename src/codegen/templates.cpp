#include "codegen/templates.h"

#include <source_location>
#include <string>

#include "lazy/error.h"

namespace lazy::codegen {

std::string_view template_text(std::string_view name) {
  for (const EmbeddedTemplate& t : embedded_templates())
    if (t.name == name) return t.text;
  throw RuntimeError("lazyfuse internal error: no embedded template named " + std::string(name) +
                         "; the library was built without it, please report it",
                     std::source_location::current());
}

ir::Hash128 templates_checksum() {
  static const ir::Hash128 checksum = [] {
    std::string all;
    for (const EmbeddedTemplate& t : embedded_templates()) {
      all.append(t.name);
      all.push_back('\0');
      all.append(t.text);
      all.push_back('\0');
    }
    return ir::hash_bytes(all.data(), all.size());
  }();
  return checksum;
}

}  // namespace lazy::codegen
