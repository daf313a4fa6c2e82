// Sets a LAZY_* variable for one test (or unsets it, for nullptr) and puts back what was there.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

#include "ir/settings.h"

namespace lazy_test {

class ScopedVariable {
 public:
  ScopedVariable(lazy::ir::Setting setting, const char* value)
      : name_(lazy::ir::setting_spec(setting).name) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value, 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~ScopedVariable() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace lazy_test
