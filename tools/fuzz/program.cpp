#include "tools/fuzz/program.h"

#include <algorithm>
#include <iterator>

namespace lazy::fuzz {

std::string step_label(const Step& step) {
  static const char* kinds[] = {
      "data",  "full",    "arange",      "rand",       "randn",    "unary",      "binary",
      "where", "clamp",   "lerp",        "cast",       "reshape",  "permute",    "expand",
      "slice", "squeeze", "unsqueeze",   "contiguous", "reduce",   "arg_reduce", "var",
      "std",   "softmax", "log_softmax", "layer_norm", "rms_norm", "join",       "gather",
      "scan",  "top_k",   "scatter",     "product"};
  static_assert(std::size(kinds) == std::size_t(Op::product) + 1, "a label for every Op");
  return step.name.empty() ? kinds[int(step.op)] : step.name;
}

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

std::vector<int> folded_axes(const std::vector<int>& axes, int rank) {
  std::vector<int> out;
  if (rank == 0) return out;
  if (axes.empty()) {
    for (int a = 0; a < rank; ++a) out.push_back(a);
    return out;
  }
  for (int a : axes) out.push_back(a < 0 ? a + rank : a);
  return out;
}

std::vector<Dim> reduced_shape(const std::vector<Dim>& in, const std::vector<int>& folded,
                               bool keepdim) {
  std::vector<Dim> out;
  for (int a = 0; a < int(in.size()); ++a) {
    const bool f = std::find(folded.begin(), folded.end(), a) != folded.end();
    if (!f)
      out.push_back(in[a]);
    else if (keepdim)
      out.push_back(Dim{});
  }
  return out;
}

double element_count(const Program& program, const std::vector<Dim>& dims) {
  double n = 1;
  for (const Dim& d : dims) {
    double size = double(d.literal);
    for (int id : d.sizes) size *= double(program.sizes[id].value);
    n *= std::max(size, 1.0);
  }
  return n;
}

double element_count(const Shape& shape) {
  double n = 1;
  for (std::int64_t size : shape) n *= std::max(double(size), 1.0);
  return n;
}

Scalar scalar_of(const Arg& arg) {
  switch (arg.kind) {
    case Scalar::Kind::boolean:
      return Scalar(arg.number != 0);
    case Scalar::Kind::integer:
      return Scalar(std::int64_t(arg.number));
    case Scalar::Kind::floating:
      return Scalar(arg.number);
  }
  return Scalar(arg.number);
}

}  // namespace lazy::fuzz
