#include "tools/fuzz/einsum_recording.h"

#include <algorithm>
#include <map>

#include "tools/fuzz/product_rules.h"
#include "tools/fuzz/rule_helpers.h"

namespace lazy::fuzz {

namespace {

// Terms the products may add up (result elements times the summed sizes): past this the
// reference evaluator, in double on one host core, becomes the bottleneck.
constexpr double kMaxEinsumTerms = double(1 << 24);

bool names(const std::string& indices, char c) {
  return indices.find(c) != std::string::npos;
}

// The indices of `indices` that `needed` names (or does not, with `keep` false), once each.
std::string distinct(const std::string& indices, const std::string& needed, bool keep) {
  std::string out;
  for (char c : indices)
    if (names(needed, c) == keep && !names(out, c)) out += c;
  return out;
}

Dim size_of(const std::map<char, Dim>& dims, const std::string& indices) {
  Dim size;
  for (char c : indices) {
    const Dim& d = dims.at(c);
    size.literal *= d.literal;
    size.sizes.insert(size.sizes.end(), d.sizes.begin(), d.sizes.end());
  }
  std::sort(size.sizes.begin(), size.sizes.end());
  return size;
}

}  // namespace

std::vector<std::string> einsum_inputs(const std::string& equation) {
  std::vector<std::string> inputs(1);
  for (char c : equation.substr(0, equation.find("->"))) {
    if (c == ',') {
      inputs.emplace_back();
    } else {
      inputs.back() += c;
    }
  }
  return inputs;
}

std::string einsum_output(const std::string& equation) {
  const std::size_t arrow = equation.find("->");
  if (arrow != std::string::npos) return equation.substr(arrow + 2);
  std::string all = equation;
  all.erase(std::remove(all.begin(), all.end(), ','), all.end());
  std::string out;
  for (char c : all)
    if (std::count(all.begin(), all.end(), c) == 1) out += c;
  std::sort(out.begin(), out.end());
  return out;
}

RecordedStep record_einsum(const Program& program, const Step& s, const Builder& earlier,
                           std::source_location loc) {
  const std::vector<std::string> inputs = einsum_inputs(s.equation);
  const std::string out = einsum_output(s.equation);
  if (inputs.size() != s.args.size()) reject("einsum", "the equation names other operands");
  std::map<char, Dim> dims;  // one Dim per index, the same wherever it appears
  std::vector<Tensor> tensors;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<Dim>& shape = earlier.shape(s.args[i].step);
    if (shape.size() != inputs[i].size()) reject("einsum", "an operand's rank is not its indices'");
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
      auto [at, added] = dims.emplace(inputs[i][axis], shape[axis]);
      if (!added && !(at->second == shape[axis]))
        reject("einsum", "an index's sizes agree only for the current size values");
    }
    tensors.push_back(earlier.tensor(s.args[i].step));
  }
  RecordedStep r;
  r.out = einsum(s.equation, tensors, loc);
  for (char c : out) r.shape.push_back(dims[c]);
  std::string all;
  for (const std::string& indices : inputs) all += indices;
  const double terms = double(dim_value(program, size_of(dims, distinct(all, out, false))));
  std::int64_t elements = 1;
  for (const Dim& d : r.shape) elements *= dim_value(program, d);
  if (double(elements) * std::max(terms, 1.0) > kMaxEinsumTerms)
    throw StepRejected("einsum: too many terms for the reference evaluator");

  const DType d = r.out.dtype();
  const bool tf32 = d == DType::f32 && matmul_precision() == "tf32";
  const Operand one = number_operand(1.0, d);
  const auto needed_after = [&](std::size_t next) {
    std::string needed = out;
    for (std::size_t i = next; i < inputs.size(); ++i) needed += inputs[i];
    return needed;
  };
  // An operand's indices nothing after it needs are summed first: a product with 1 over them.
  const auto alone = [&](std::size_t i, const std::string& needed) {
    Operand x{earlier.bounds(s.args[i].step), d};
    const std::string summed = distinct(inputs[i], needed, false);
    if (summed.empty()) return x;
    return Operand{
        product_rule(x, one, d, dim_value(program, size_of(dims, summed)), /*tf32=*/false), d};
  };
  Operand result = alone(0, needed_after(1));
  std::string live = distinct(inputs[0], needed_after(1), true);
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const std::string needed = needed_after(i + 1);
    const Operand right = alone(i, needed + live);
    const std::string right_live = distinct(inputs[i], needed + live, true);
    std::string summed;  // in both and needed by nothing after: the pair's inner size
    for (char c : live)
      if (names(right_live, c) && !names(needed, c)) summed += c;
    result = Operand{product_rule(result, right, d, dim_value(program, size_of(dims, summed)),
                                  tf32 && !summed.empty()),
                     d};
    live = distinct(live + right_live, needed, true);
  }
  r.bounds = result.bounds;
  return r;
}

}  // namespace lazy::fuzz
