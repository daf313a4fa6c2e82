#include "tools/fuzz/program.h"

namespace lazy::fuzz {

std::int64_t dim_value(const Program& program, const Dim& dim) {
  std::int64_t n = dim.literal;
  for (int id : dim.sizes) n *= program.sizes[id].value;
  return n;
}

Shape concrete_shape(const Program& program, const std::vector<Dim>& dims) {
  Shape shape;
  for (const Dim& d : dims) shape.push_back(dim_value(program, d));
  return shape;
}

double element_count(const Program& program, const std::vector<Dim>& dims) {
  double n = 1;
  for (const Dim& d : dims) {
    double size = double(d.literal);
    for (int id : d.sizes) size *= double(program.sizes[id].value);
    n *= size;
  }
  return n;
}

}  // namespace lazy::fuzz
