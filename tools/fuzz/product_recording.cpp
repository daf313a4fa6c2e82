#include "tools/fuzz/product_recording.h"

#include <algorithm>
#include <array>
#include <map>

#include "tools/fuzz/einsum_recording.h"
#include "tools/fuzz/product_rules.h"
#include "tools/fuzz/rule_helpers.h"

namespace lazy::fuzz {

namespace {

// Terms a product may add up (result elements times the inner size): past this the reference
// evaluator, in double on one host core, becomes the bottleneck.
constexpr double kMaxProductTerms = double(1 << 24);

using Dims = std::vector<Dim>;

// The product's symbolic shape and inner size from its operands' ([..., M, K] and [..., K, N],
// either possibly 1-D), or StepRejected where only the concrete sizes agree.
struct ProductShape {
  Dims result;
  Dim inner;
};

ProductShape matmul_shape(const Dims& a, const Dims& b, bool same_batch) {
  const std::size_t ra = a.size(), rb = b.size();
  const Dim& ka = a.back();
  const Dim& kb = rb == 1 ? b[0] : b[rb - 2];
  if (!(ka == kb)) reject("product", "inner sizes agree only for the current size values");
  const Dims batch_a(a.begin(), a.end() - std::min<std::size_t>(ra, 2));
  const Dims batch_b(b.begin(), b.end() - std::min<std::size_t>(rb, 2));
  if (same_batch && batch_a != batch_b) reject("bmm", "batch sizes agree only by value");
  ProductShape shape{{}, ka};
  if (!broadcast_dims(batch_a, batch_b, shape.result))
    reject("product", "batch axes do not broadcast symbolically");
  if (ra > 1) shape.result.push_back(a[ra - 2]);
  if (rb > 1) shape.result.push_back(b[rb - 1]);
  return shape;
}

// A bias or addmm's c broadcasts to the product's shape without changing it.
void require_broadcasts_to(const Dims& operand, const Dims& result) {
  Dims out;
  if (!broadcast_dims(result, operand, out) || out != result)
    reject("product", "an added operand does not broadcast to the result symbolically");
}

}  // namespace

RecordedStep record_product(const Program& program, const Step& s, const Builder& earlier,
                            std::source_location loc) {
  auto tensor = [&](int k) -> const Tensor& { return earlier.tensor(s.args[k].step); };
  auto shape = [&](int k) -> const Dims& { return earlier.shape(s.args[k].step); };
  auto operand = [&](int k) {
    return Operand{earlier.bounds(s.args[k].step), earlier.tensor(s.args[k].step).dtype()};
  };
  if (s.name == "einsum") return record_einsum(program, s, earlier, loc);
  RecordedStep r;
  ProductShape ps;
  int left = 0;  // the product's operands are args left and left + 1
  if (s.name == "matmul" || s.name == "bmm") {
    r.out = s.name == "matmul" ? matmul(tensor(0), tensor(1), loc) : bmm(tensor(0), tensor(1), loc);
    ps = matmul_shape(shape(0), shape(1), s.name == "bmm");
  } else if (s.name == "linear") {
    r.out = s.args.size() > 2 ? linear(tensor(0), tensor(1), tensor(2), loc)
                              : linear(tensor(0), tensor(1), std::nullopt, loc);
    const Dims& w = shape(1);
    ps = matmul_shape(shape(0), Dims{w[1], w[0]}, false);
    if (s.args.size() > 2) require_broadcasts_to(shape(2), ps.result);
  } else if (s.name == "addmm") {
    r.out = addmm(tensor(0), tensor(1), tensor(2), scalar_of(s.args[3]), scalar_of(s.args[4]), loc);
    ps = matmul_shape(shape(1), shape(2), false);
    require_broadcasts_to(shape(0), ps.result);
    left = 1;
  } else {
    throw std::logic_error("lazyfuse-fuzz: unknown product " + s.name);
  }
  r.shape = ps.result;
  const std::int64_t k = dim_value(program, ps.inner);
  if (element_count(program, r.shape) * double(k) > kMaxProductTerms)
    throw StepRejected("product: too many terms for the reference evaluator");

  const DType d = r.out.dtype();
  const bool tf32 = d == DType::f32 && matmul_precision() == "tf32";
  r.bounds = product_rule(operand(left), operand(left + 1), d, k, tf32);
  // linear and addmm record the ordinary ops after the product (api/matmul_ops.cpp): the same
  // rules follow them.
  auto number = [&](double v) { return Operand{number_bounds(v, d), d}; };
  if (s.name == "linear" && s.args.size() > 2)
    r.bounds = binary_rule("add", Operand{r.bounds, d}, operand(2), d, d);
  if (s.name == "addmm") {
    const double beta = s.args[3].number, alpha = s.args[4].number;
    if (alpha != 1) r.bounds = binary_rule("mul", Operand{r.bounds, d}, number(alpha), d, d);
    if (beta != 0) {
      Operand c = operand(0);
      if (beta != 1) c = Operand{binary_rule("mul", c, number(beta), d, d), d};
      r.bounds = binary_rule("add", Operand{r.bounds, d}, c, d, d);
    }
  }
  return r;
}

}  // namespace lazy::fuzz
