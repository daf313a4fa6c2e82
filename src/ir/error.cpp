#include "lazy/error.h"

#include <absl/strings/str_cat.h>

namespace lazy {

Error::Error(const std::string& message, std::source_location where)
    : std::runtime_error(absl::StrCat(message, " (at ", where.file_name(), ":", where.line(), ")")),
      where_(where) {}

}  // namespace lazy
