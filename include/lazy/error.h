// Exceptions thrown by lazyfuse. Errors found while recording an op are thrown at the call,
// carry the caller's source location, and leave the thread's trace as it was.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>
#include <utility>

namespace lazy {

class Error : public std::runtime_error {
 public:
  Error(const std::string& message, std::source_location where);
  // Where the user called the op that failed. Errors of the backend found while syncing (no
  // usable device, a failed compile or launch) may name a line inside the library instead.
  const std::source_location& where() const { return where_; }

 private:
  std::source_location where_;
};

// Shapes that do not broadcast, a reshape that does not keep the element count, item() on
// a tensor that is not a single element, ...
class ShapeError : public Error {
  using Error::Error;
};

// An axis out of range, a repeated axis, a permutation that is not one.
class AxisError : public Error {
  using Error::Error;
};

// A dtype the op does not accept.
class DTypeError : public Error {
  using Error::Error;
};

// An index outside the axis it picks along (gather, index_select, embedding). On the GPU it is
// found by the kernel and thrown by the first sync or host read after the kernel has run.
class IndexError : public Error {
  using Error::Error;
};

// A bad argument value: a zero step, a scalar that does not fit the dtype, an undefined tensor.
class ValueError : public Error {
  using Error::Error;
};

// The library cannot go on: a thread rule broken, a backend that failed.
class RuntimeError : public Error {
  using Error::Error;
};

// NVRTC rejected a generated kernel: a code generator bug, or a toolkit too old for it. what()
// carries NVRTC's log; source() is the whole kernel source.
class CompileError : public Error {
 public:
  CompileError(const std::string& what_failed, std::string source, std::string log,
               std::source_location where = std::source_location::current())
      : Error(what_failed + ": NVRTC failed to compile the generated kernel. NVRTC log:\n" + log +
                  "\n(set LAZY_DEBUG=1 to print the generated CUDA source)",
              where),
        source_(std::move(source)),
        log_(std::move(log)) {}
  const std::string& source() const { return source_; }
  const std::string& log() const { return log_; }

 private:
  std::string source_;
  std::string log_;
};

}  // namespace lazy
