#include "lazy/dtype.h"

namespace lazy {

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return "f32";
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
    case DType::i32:
      return "i32";
    case DType::i64:
      return "i64";
    case DType::bool_:
      return "bool";
  }
  return "?";
}

int itemsize(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return 4;
    case DType::f16:
      return 2;
    case DType::bf16:
      return 2;
    case DType::i32:
      return 4;
    case DType::i64:
      return 8;
    case DType::bool_:
      return 1;
  }
  return 0;
}

}  // namespace lazy
